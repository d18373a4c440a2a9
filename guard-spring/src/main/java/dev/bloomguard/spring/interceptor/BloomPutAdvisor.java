package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;

/**
 * Applies the add of {@code @BloomPut} on methods that return a plain value or a reactive type,
 * ordered <em>inside</em> Spring's transaction advice, while {@link BloomGuardAdvisor}'s check
 * stays outside it: on a {@code @Transactional @BloomPut} method the key is added before the
 * commit, so an add that Redis refuses rolls the row back instead of leaving a committed row the
 * filter does not know. (A reactive transaction hands its method's value on only after the
 * commit: an add outside it would come too late.) A {@code CompletableFuture} method's
 * transaction, if any, ends as the method returns, before the future completes; its put stays
 * with {@link BloomGuardAdvisor}.
 *
 * <p>The one thing easy to get wrong: "inside" rests on order. This advisor has the lowest
 * precedence, as the transaction advisor has by default; of two advisors with equal order, the
 * one registered later runs inside, and the starter's auto-configuration is registered after
 * the application's own configuration and after Boot's transaction auto-configuration.
 * An application that gives its transaction advice a lower precedence still than the default
 * leaves the add outside; such an add, if refused, is retried and never blocks the row on this
 * instance (see {@code RetriedAdds}).
 */
public final class BloomPutAdvisor extends AbstractPointcutAdvisor {

    /** Lowest precedence: inside transactions whose advice has the default order. */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE;

    private static final long serialVersionUID = 1L;

    private final transient Pointcut pointcut;
    private final transient MethodInterceptor advice;

    public BloomPutAdvisor(BloomGuardAdvisor guardAdvisor) {
        BloomOperationSource source = guardAdvisor.source();
        BloomGuardInterceptor interceptor = guardAdvisor.interceptor();
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                BloomOperations operations = source.get(method, targetClass);
                return operations != null && operations.put() != null
                        && operations.returns().kind() != ReturnKind.Kind.STAGE;
            }
        };
        this.advice = interceptor::proceedAndAdd;
        setOrder(ORDER);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }
}
