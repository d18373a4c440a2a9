package dev.bloomguard.spring.autoconfigure;

import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.spring.redis.SpringDataLettuceConnections;

/**
 * Where the filters' Redis connection comes from, in this order:
 * <ol>
 * <li>{@code bloom-guard.redis.*} set: a Lettuce connection of the starter's own, there, whatever
 * the application uses;
 * <li>the application's {@link LettuceConnectionFactory}, shared;
 * <li>any other {@link RedisConnectionFactory} (Redisson's, Jedis's): a Lettuce connection of the
 * starter's own to the Redis that {@code spring.data.redis.*} names, the settings such an
 * application already has, so that it needs no more.
 * </ol>
 * A connection of its own is the starter's to close: it shuts down with the context.
 * Imported by {@link BloomGuardAutoConfiguration}, so it runs after Boot's Redis configuration.
 */
@Configuration(proxyBeanMethods = false)
class BloomGuardRedisConfiguration {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardRedisConfiguration.class);

    static final String OWN = "bloom-guard.redis";
    static final String SPRING = "spring.data.redis";

    /**
     * Lazy: made when the starter's own store asks for it (at once, at startup), never when the
     * application declares a {@code BitmapStore} that does not use it, such as the in-memory one,
     * which must then start with no Redis and none of these settings.
     */
    @Bean
    @Lazy
    @ConditionalOnMissingBean
    @Conditional(RedisWanted.class)
    LettuceConnections bloomGuardLettuceConnections(ObjectProvider<RedisConnectionFactory> factories,
            Environment environment) {
        Binder binder = Binder.get(environment);
        if (binder.bind(OWN, BloomGuardRedisProperties.class).isBound()) {
            BloomGuardRedisProperties settings = binder.bindOrCreate(OWN, BloomGuardRedisProperties.class);
            refuseSslBundle(binder, OWN);
            StarterRedisConnection own = StarterRedisConnection.open(settings, OWN);
            log.info("bloom-guard connects to the {} set in {}.*, with a Lettuce client of its own", own.description(), OWN);
            return own.connections();
        }
        RedisConnectionFactory factory = factories.getIfUnique();
        if (factory instanceof LettuceConnectionFactory lettuce) {
            return new SpringDataLettuceConnections(lettuce);
        }
        if (factory == null) {
            throw new BloomGuardRedisException("bloom-guard has filters (" + String.join(", ", filterNames(binder))
                    + ") but no Redis to keep them in: there is no single RedisConnectionFactory bean and no " + OWN
                    + ".* setting", "Set " + OWN + ".host and " + OWN + ".port (or " + OWN + ".url, " + OWN
                    + ".sentinel.*, " + OWN + ".cluster.nodes), or let Spring Boot's Redis auto-configuration create a"
                    + " connection factory from " + SPRING + ".*.");
        }
        String kind = factory.getClass().getName();
        if (!namesServer(binder.bindOrCreate(SPRING, BloomGuardRedisProperties.class))
                && (environment.containsProperty("spring.redis.redisson.config")
                        || environment.containsProperty("spring.redis.redisson.file"))) {
            throw new BloomGuardRedisException("bloom-guard needs a Lettuce connection, and the application's"
                    + " RedisConnectionFactory is a " + kind + " configured by spring.redis.redisson.*, which"
                    + " bloom-guard does not read; " + SPRING + ".* names no server either",
                    "Tell bloom-guard where Redis is: set " + OWN + ".host and " + OWN + ".port (or " + OWN + ".url, "
                            + OWN + ".sentinel.*, " + OWN + ".cluster.nodes) to the Redis that Redisson uses.");
        }
        refuseSslBundle(binder, SPRING);
        StarterRedisConnection own = StarterRedisConnection.open(binder.bindOrCreate(SPRING,
                BloomGuardRedisProperties.class), SPRING);
        log.info("The application's RedisConnectionFactory is a {}, not Lettuce's: bloom-guard connects to the {} of {}.*"
                + " with a Lettuce client of its own (set {}.* to choose another)", kind, own.description(), SPRING, OWN);
        return own.connections();
    }

    private static boolean namesServer(BloomGuardRedisProperties settings) {
        return settings.getUrl() != null || settings.getHost() != null || settings.getSentinel().getMaster() != null
                || !settings.getCluster().getNodes().isEmpty();
    }

    /** A connection of bloom-guard's own trusts the JVM's trust store; an SSL bundle would be ignored, TLS with it. */
    private static void refuseSslBundle(Binder binder, String prefix) {
        if (binder.bind(prefix + ".ssl.bundle", String.class).isBound()) {
            throw new BloomGuardRedisException(prefix + ".ssl.bundle is set, and bloom-guard's own Lettuce connection does"
                    + " not read SSL bundles: it would connect without the bundle's trust material",
                    "Set " + OWN + ".url to a rediss:// URL (or " + OWN + ".ssl.enabled=true) and put the server's"
                            + " certificate in the JVM's trust store, or use Lettuce as the application's Redis client.");
        }
    }

    private static Iterable<String> filterNames(Binder binder) {
        return binder.bind("bloom-guard.filters", Bindable.mapOf(String.class, BloomGuardProperties.Filter.class))
                .map(Map::keySet).orElse(Set.of());
    }

    /** A connection is wanted when the application has a factory, or bloom-guard has settings or filters. */
    static class RedisWanted extends AnyNestedCondition {

        RedisWanted() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(RedisConnectionFactory.class)
        static class ApplicationFactory {
        }

        @Conditional(OwnSettingsOrFilters.class)
        static class OwnSettings {
        }
    }

    static class OwnSettingsOrFilters extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            if (binder.bind(OWN, BloomGuardRedisProperties.class).isBound()) {
                return ConditionOutcome.match(OWN + ".* is set");
            }
            if (binder.bind("bloom-guard.filters", Bindable.mapOf(String.class, BloomGuardProperties.Filter.class)).isBound()) {
                return ConditionOutcome.match("bloom-guard.filters is set");
            }
            return ConditionOutcome.noMatch("no " + OWN + ".* and no bloom-guard.filters");
        }
    }
}
