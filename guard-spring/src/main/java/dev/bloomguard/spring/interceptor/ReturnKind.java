package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * How a guarded method's result arrives, chosen once from its declared return type: a value on
 * the calling thread, a {@code CompletionStage} to guard without blocking, or a type that
 * Spring's {@link ReactiveAdapterRegistry} knows ({@code Mono}, {@code Flux}, any
 * {@code Publisher}, RxJava, Mutiny, Kotlin {@code Flow}), guarded on subscription.
 *
 * <p>A {@link Future} that is not a {@code CompletionStage} is refused: it can only be waited
 * on, so the guard could neither check without blocking nor see its value for {@code #result}.
 */
final class ReturnKind {

    enum Kind {
        /** A value (or nothing): checked and added on the calling thread. */
        PLAIN,
        /** A {@code CompletableFuture} or {@code CompletionStage}: see {@link StageCalls}. */
        STAGE,
        /** A reactive type: see {@link ReactiveCalls}. */
        REACTIVE
    }

    static final ReturnKind PLAIN = new ReturnKind(Kind.PLAIN, null);

    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
            ReturnKind.class.getClassLoader());

    private static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent(
            "kotlinx.coroutines.reactor.MonoKt", ReturnKind.class.getClassLoader());

    private final Kind kind;
    private final ReactiveAdapter adapter;

    private ReturnKind(Kind kind, ReactiveAdapter adapter) {
        this.kind = kind;
        this.adapter = adapter;
    }

    /**
     * @throws BloomGuardConfigurationException naming {@code where} for a return type the guard cannot handle
     */
    static ReturnKind of(Method method, String where) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            return suspending(method, where);
        }
        Class<?> type = method.getReturnType();
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return new ReturnKind(Kind.STAGE, null);
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            throw new BloomGuardConfigurationException(where + ": returns " + type.getName()
                    + ", which the guard cannot create when it rejects a call or adds after completion;"
                    + " declare the return type as CompletableFuture or CompletionStage");
        }
        if (Future.class.isAssignableFrom(type)) {
            throw new BloomGuardConfigurationException(where + ": returns " + type.getName()
                    + ", a Future that can only be waited on, so the guard could not check without blocking nor see"
                    + " its value as #result; return a CompletableFuture (or CompletionStage) instead");
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
        if (adapter == null) {
            return PLAIN;
        }
        if (!REACTOR_PRESENT) {
            throw new BloomGuardConfigurationException(where + ": returns " + type.getName()
                    + ", which the guard handles through Project Reactor; add io.projectreactor:reactor-core");
        }
        return new ReturnKind(Kind.REACTIVE, adapter);
    }

    /**
     * A Kotlin {@code suspend} function: inside Spring's proxies its invocation yields a
     * {@code Mono} (Spring's coroutine support turns it back into a suspension for the caller),
     * so it is guarded as a method returning one, and {@code #result} is the function's value.
     */
    private static ReturnKind suspending(Method method, String where) {
        if (!REACTOR_PRESENT || !COROUTINES_REACTOR_PRESENT) {
            throw new BloomGuardConfigurationException(where + ": is a Kotlin suspend function, which Spring's proxies"
                    + " run through Project Reactor; add org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
        }
        Class<?> mono = ClassUtils.resolveClassName("reactor.core.publisher.Mono", ReturnKind.class.getClassLoader());
        return new ReturnKind(Kind.REACTIVE, ReactiveAdapterRegistry.getSharedInstance().getAdapter(mono));
    }

    Kind kind() {
        return kind;
    }

    /** The adapter of a {@link Kind#REACTIVE} return type, otherwise null. */
    ReactiveAdapter adapter() {
        return adapter;
    }
}
