package dev.bloomguard.spring.autoconfigure;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import dev.bloomguard.spring.interceptor.BloomGuardAdvisor;
import dev.bloomguard.spring.interceptor.BloomGuardInterceptor;
import dev.bloomguard.spring.interceptor.BloomOperationSource;
import dev.bloomguard.spring.interceptor.BloomPutAdvisor;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.GuardObservations;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.KeySource;

/**
 * The starter's core: the filters from {@code bloom-guard.filters}, the advisor behind
 * {@code @BloomGuard}/{@code @BloomPut}, and the warmup from SQL or a {@link KeySource} bean. Every bean can be replaced by
 * declaring one of the same type. Each filter is built by {@link FilterFactory}, each warmer task
 * by {@link WarmupTasks}.
 */
@AutoConfiguration(afterName = {
        // Spring Boot 3 and Spring Boot 4 names of each: Boot ignores the one that does not exist.
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        // Registered after the transaction advisor, so that BloomPutAdvisor, of equal order, runs inside it.
        "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
        "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration" })
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnProperty(prefix = "bloom-guard", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(BloomGuardProperties.class)
@Import({ BloomGuardRedisConfiguration.class, BloomGuardAutoConfiguration.AutoProxyRegistrar.class })
public class BloomGuardAutoConfiguration {

    /** How often an instance waiting for another's load looks again. */
    private static final Duration WAIT_POLL = Duration.ofMillis(200);

    /**
     * {@code bloom-guard.*} validated and each filter's settings converted, once: see {@link FilterSpecs}.
     * Static, because the advisor asks for it while it proxies the first beans. Unknown names fail
     * first: a misspelt one is often why a value looks wrong.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static FilterSpecs bloomGuardFilterSpecs(BloomGuardProperties properties, Environment environment) {
        PropertyNames.requireKnown(environment);
        return FilterSettingsValidator.validate(properties);
    }

    /** Takes the specifications only so that bad settings fail before a Redis connection is made. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LettuceConnections.class)
    public BitmapStore bloomGuardBitmapStore(LettuceConnections connections, BloomGuardProperties properties,
            FilterSpecs specs) {
        return LettuceBitmapStore.create(connections, properties.getWriteTimeout(),
                CircuitBreaker.create(properties.getCircuitBreaker().toSettings()));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BitmapStore.class)
    public BloomFilterRegistry bloomFilterRegistry(BloomGuardProperties properties, FilterSpecs specs, BitmapStore store,
            ObjectProvider<FilterWarmer> warmer, ObjectProvider<FilterStatusCache> statuses,
            ObjectProvider<DataSource> primaryDataSource, BeanFactory beanFactory, Environment environment) {
        KeySourceBeans.resolve(properties, beanFactory);
        String keyPrefix = properties.effectiveKeyPrefix(environment.getProperty("spring.application.name"));
        Map<String, RedisBloomFilter> filters = new LinkedHashMap<>();
        FilterFactory factory = new FilterFactory(properties, store, warmer, statuses, primaryDataSource, beanFactory,
                keyPrefix);
        specs.all().forEach(spec -> filters.put(spec.name(), factory.filter(spec)));
        return new BloomFilterRegistry(filters);
    }

    /** Logs the circuit's transitions once per store, not once per filter: see {@link CircuitTransitionLog}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BloomFilterRegistry.class)
    @ConditionalOnSingleCandidate(BitmapStore.class)
    CircuitTransitionLog bloomGuardCircuitTransitionLog(BitmapStore store) {
        return new CircuitTransitionLog(store);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BloomFilterRegistry.class)
    public FilterWarmer bloomGuardFilterWarmer(BloomGuardProperties properties, BloomFilterRegistry registry,
            ObjectProvider<DataSource> primaryDataSource, BeanFactory beanFactory, ObjectProvider<GuardMetrics> metrics) {
        List<FilterWarmer.Task> tasks = WarmupTasks.of(properties, registry, primaryDataSource, beanFactory);
        return new FilterWarmer(tasks, properties.getLockTtl(), WAIT_POLL, properties.getRewindCheckInterval(),
                () -> metrics.getIfAvailable(() -> GuardMetrics.NONE));
    }

    /**
     * Static, and bound straight from the environment for what it needs when it is created (its
     * order, what a Redis failure means): advisors are created while bean post processors are
     * still being registered, and must not drag Redis or metrics beans in early. What each
     * filter's annotations mean ({@code on-absent}, {@code single-flight}, the exceptions that mean
     * "not found") it reads from the one {@link FilterSpecs}, when it first proxies a bean.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    public static BloomGuardAdvisor bloomGuardAdvisor(Environment environment, ObjectProvider<FilterSpecs> specs,
            ObjectProvider<BloomFilterRegistry> registry, ObjectProvider<GuardMetrics> metrics,
            ObjectProvider<GuardObservations> observations, ObjectProvider<FilterWarmer> warmer) {
        Binder binder = Binder.get(environment);
        boolean blockOnRedisFailure = binder.bind("bloom-guard.on-redis-failure", BloomGuardProperties.OnRedisFailure.class)
                .orElse(BloomGuardProperties.OnRedisFailure.ALLOW) == BloomGuardProperties.OnRedisFailure.BLOCK;
        int order = binder.bind("bloom-guard.order", Integer.class).orElse(BloomGuardAdvisor.DEFAULT_ORDER);
        BloomOperationSource source = new BloomOperationSource(new SpecsCatalog(specs));
        BloomGuardInterceptor interceptor = new BloomGuardInterceptor(source, registry::getObject,
                () -> metrics.getIfAvailable(() -> GuardMetrics.NONE),
                () -> observations.getIfAvailable(() -> GuardObservations.NONE),
                blockOnRedisFailure, filter -> warmer.getObject().rebuild(filter.name()));
        return new BloomGuardAdvisor(source, interceptor, order);
    }

    /** The add of {@code @BloomPut}, ordered inside transactions; shares the guard advisor's interceptor. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    public static BloomPutAdvisor bloomPutAdvisor(BloomGuardAdvisor guardAdvisor) {
        return new BloomPutAdvisor(guardAdvisor);
    }

    /** Filter names and policies as the annotations see them at proxy-creation time: the validated specifications. */
    private static final class SpecsCatalog implements BloomOperationSource.FilterCatalog {

        private final ObjectProvider<FilterSpecs> provider;
        private volatile Map<String, FilterSpecs.Spec> specs;

        SpecsCatalog(ObjectProvider<FilterSpecs> provider) {
            this.provider = provider;
        }

        private Map<String, FilterSpecs.Spec> specs() {
            Map<String, FilterSpecs.Spec> known = specs;
            if (known == null) {
                Map<String, FilterSpecs.Spec> byName = new LinkedHashMap<>();
                provider.getObject().all().forEach(spec -> byName.put(spec.name(), spec));
                known = Collections.unmodifiableMap(byName);
                specs = known;
            }
            return known;
        }

        @Override
        public Optional<Boolean> returnsEmpty(String filter) {
            return Optional.ofNullable(specs().get(filter))
                    .map(spec -> spec.settings().getOnAbsent() == BloomGuardProperties.OnAbsent.RETURN_EMPTY);
        }

        @Override
        public boolean singleFlight(String filter) {
            FilterSpecs.Spec spec = specs().get(filter);
            return spec != null && spec.settings().isSingleFlight();
        }

        @Override
        public List<Class<? extends Throwable>> missExceptions(String filter) {
            FilterSpecs.Spec spec = specs().get(filter);
            return spec == null ? null : spec.missExceptions();
        }

        @Override
        public double auditSampleRate(String filter) {
            FilterSpecs.Spec spec = specs().get(filter);
            return spec == null ? 0 : spec.settings().getAudit().getSampleRate();
        }

        @Override
        public Duration auditRebuildCooldown(String filter) {
            FilterSpecs.Spec spec = specs().get(filter);
            return spec == null ? Duration.ofMinutes(10) : spec.settings().getAudit().getRebuildCooldown();
        }

        @Override
        public Double bypassMaxRate(String filter) {
            FilterSpecs.Spec spec = specs().get(filter);
            return spec == null ? null : spec.settings().getBypass().getMaxRate();
        }

        @Override
        public boolean bypassAllowedWhenExhausted(String filter) {
            FilterSpecs.Spec spec = specs().get(filter);
            return spec != null
                    && spec.settings().getBypass().getWhenExhausted() == BloomGuardProperties.WhenExhausted.ALLOW;
        }

        @Override
        public Iterable<String> names() {
            return specs().keySet();
        }
    }

    /** Makes sure an auto-proxy creator exists even with {@code spring.aop.auto=false}, as {@code @EnableCaching} does. */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
