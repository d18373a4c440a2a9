package dev.bloomguard.spring.interceptor;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.Ordered;

/**
 * Applies {@link BloomGuardInterceptor} to every bean method that carries {@code @BloomGuard}
 * or {@code @BloomPut}, including those declared only on an interface.
 */
public final class BloomGuardAdvisor extends AbstractPointcutAdvisor
        implements SmartInitializingSingleton, BeanFactoryAware, DisposableBean {

    /**
     * Default order: before Spring's caching and transaction advice (both at lowest precedence),
     * so a rejected call opens no transaction and consults no cache.
     */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private static final long serialVersionUID = 1L;

    private final transient BloomOperationSource source;
    private final transient BloomGuardPointcut pointcut;
    private final transient BloomGuardInterceptor interceptor;
    private transient ConfigurableListableBeanFactory beanFactory;

    public BloomGuardAdvisor(BloomOperationSource source, BloomGuardInterceptor interceptor, int order) {
        this.source = source;
        this.pointcut = new BloomGuardPointcut(source);
        this.interceptor = interceptor;
        setOrder(order);
    }

    BloomOperationSource source() {
        return source;
    }

    BloomGuardInterceptor interceptor() {
        return interceptor;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory instanceof ConfigurableListableBeanFactory listable ? listable : null;
    }

    /**
     * Resolves the filters once every bean exists, so a missing Redis fails startup, not the first
     * call; then warns about every annotated method that no proxy can apply.
     */
    @Override
    public void afterSingletonsInstantiated() {
        interceptor.resolveDependencies();
        if (beanFactory != null) {
            UnguardedMethods.warn(beanFactory);
        }
    }

    /** Stops retrying adds that Redis refused. */
    @Override
    public void destroy() {
        interceptor.close();
    }
}
