package dev.bloomguard.spring.interceptor;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;

/**
 * Applies {@link BloomGuardInterceptor} to every bean method that carries {@code @BloomGuard}
 * or {@code @BloomPut}, including those declared only on an interface.
 */
public final class BloomGuardAdvisor extends AbstractPointcutAdvisor implements SmartInitializingSingleton {

    /**
     * Default order: before Spring's caching and transaction advice (both at lowest precedence),
     * so a rejected call opens no transaction and consults no cache.
     */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private static final long serialVersionUID = 1L;

    private final transient BloomGuardPointcut pointcut;
    private final transient BloomGuardInterceptor interceptor;

    public BloomGuardAdvisor(BloomOperationSource source, BloomGuardInterceptor interceptor, int order) {
        this.pointcut = new BloomGuardPointcut(source);
        this.interceptor = interceptor;
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    /** Resolves the filters once every bean exists, so a missing Redis fails startup, not the first call. */
    @Override
    public void afterSingletonsInstantiated() {
        interceptor.resolveDependencies();
    }
}
