package dev.bloomguard.spring.autoconfigure;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
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
import dev.bloomguard.spring.autoconfigure.RedisConnectionDetailsReader.DescribedRedis;
import dev.bloomguard.spring.redis.SpringDataLettuceConnections;

/**
 * Where the filters' Redis connection comes from, in this order:
 * <ol>
 * <li>{@code bloom-guard.redis.*} set: a Lettuce connection of the starter's own, there, whatever
 * the application uses;
 * <li>the application's {@link LettuceConnectionFactory}, shared;
 * <li>any other {@link RedisConnectionFactory} (Redisson's, Jedis's): a Lettuce connection of the
 * starter's own to the Redis that the application's own Redis connection-details bean describes
 * (Testcontainers' {@code @ServiceConnection}, Docker Compose), as the application's client
 * connects there too; without one, to the Redis that {@code spring.data.redis.*} names, the
 * settings such an application already has, so that it needs no more.
 * </ol>
 * TLS uses the SSL bundle that {@code bloom-guard.redis.ssl.bundle}, {@code spring.data.redis.ssl.bundle}
 * or the connection details name, from Spring Boot's {@link SslBundles}; a name that is not
 * defined fails startup.
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
            ObjectProvider<RedisConnectionDetailsReader> details, ObjectProvider<SslBundles> sslBundles,
            Environment environment) {
        Binder binder = Binder.get(environment);
        if (binder.bind(OWN, BloomGuardRedisProperties.class).isBound()) {
            BloomGuardRedisProperties settings = binder.bindOrCreate(OWN, BloomGuardRedisProperties.class);
            StarterRedisConnection own = StarterRedisConnection.open(settings, OWN, sslBundle(settings, OWN, sslBundles));
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
        BloomGuardRedisProperties springSettings = binder.bindOrCreate(SPRING, BloomGuardRedisProperties.class);
        Optional<DescribedRedis> described = Optional.ofNullable(details.getIfAvailable())
                .flatMap(RedisConnectionDetailsReader::read);
        if (described.isPresent()) {
            BloomGuardRedisProperties settings = described.get().coordinates();
            settings.setTimeout(springSettings.getTimeout());
            settings.setConnectTimeout(springSettings.getConnectTimeout());
            settings.setClientName(springSettings.getClientName());
            StarterRedisConnection own = StarterRedisConnection.open(settings, described.get().source(),
                    described.get().sslBundle());
            log.info("The application's RedisConnectionFactory is a {}, not Lettuce's: bloom-guard connects to the {} that"
                    + " the application's {} describes, with a Lettuce client of its own (set {}.* to choose another)", kind,
                    own.description(), described.get().source(), OWN);
            return own.connections();
        }
        if (!namesServer(springSettings) && (environment.containsProperty("spring.redis.redisson.config")
                || environment.containsProperty("spring.redis.redisson.file"))) {
            throw new BloomGuardRedisException("bloom-guard needs a Lettuce connection, and the application's"
                    + " RedisConnectionFactory is a " + kind + " configured by spring.redis.redisson.*, which"
                    + " bloom-guard does not read; " + SPRING + ".* names no server either",
                    "Tell bloom-guard where Redis is: set " + OWN + ".host and " + OWN + ".port (or " + OWN + ".url, "
                            + OWN + ".sentinel.*, " + OWN + ".cluster.nodes) to the Redis that Redisson uses.");
        }
        StarterRedisConnection own = StarterRedisConnection.open(springSettings, SPRING,
                sslBundle(springSettings, SPRING, sslBundles));
        log.info("The application's RedisConnectionFactory is a {}, not Lettuce's: bloom-guard connects to the {} of {}.*"
                + " with a Lettuce client of its own (set {}.* to choose another)", kind, own.description(), SPRING, OWN);
        return own.connections();
    }

    private static boolean namesServer(BloomGuardRedisProperties settings) {
        return settings.getUrl() != null || settings.getHost() != null || settings.getSentinel().getMaster() != null
                || !settings.getCluster().getNodes().isEmpty();
    }

    /** The bundle {@code prefix.ssl.bundle} names, from Spring Boot's registry of {@code spring.ssl.bundle.*}; null when none is named. */
    private static SslBundle sslBundle(BloomGuardRedisProperties settings, String prefix, ObjectProvider<SslBundles> sslBundles) {
        String name = settings.getSsl().getBundle();
        if (name == null || name.isBlank() || !settings.getSsl().isOn()) {
            return null;
        }
        SslBundles registry = sslBundles.getIfAvailable();
        if (registry == null) {
            throw new BloomGuardRedisException(prefix + ".ssl.bundle names the SSL bundle '" + name + "', but the"
                    + " application has no SslBundles bean to find it in (Spring Boot's SslAutoConfiguration is off)",
                    "Let Spring Boot's SslAutoConfiguration run and define the bundle under spring.ssl.bundle.*, or remove "
                            + prefix + ".ssl.bundle.");
        }
        try {
            return registry.getBundle(name);
        }
        catch (NoSuchSslBundleException ex) {
            throw new BloomGuardRedisException(prefix + ".ssl.bundle names the SSL bundle '" + name + "', which is not"
                    + " defined", "Define it under spring.ssl.bundle.pem." + name + ".* (PEM certificates) or"
                            + " spring.ssl.bundle.jks." + name + ".* (a key store), or correct " + prefix + ".ssl.bundle.",
                    ex);
        }
    }

    private static Iterable<String> filterNames(Binder binder) {
        return binder.bind("bloom-guard.filters", Bindable.mapOf(String.class, BloomGuardProperties.Filter.class))
                .map(Map::keySet).orElse(Set.of());
    }

    /**
     * The reader of Spring Boot 3.5's RedisConnectionDetails. The condition is by name and read
     * before this class is loaded, so Boot 4, where that type does not exist, never loads it.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails")
    static class Boot3ConnectionDetails {

        @Bean
        @ConditionalOnMissingBean
        RedisConnectionDetailsReader bloomGuardRedisConnectionDetailsReader(ObjectProvider<RedisConnectionDetails> details) {
            return new Boot3RedisConnectionDetailsReader(details);
        }
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
