package dev.bloomguard.spring.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.actuate.FilterStatusCache;

/**
 * The {@link FilterStatusCache} shared by the gauges, the health contributor and the endpoint.
 * Imported by each of their auto-configurations rather than declared by the core one, so that an
 * application using none of them never runs the periodic {@code BITCOUNT}s. Public only so that
 * the Boot 4 health auto-configuration, in a package of its own, can import it.
 */
@Configuration(proxyBeanMethods = false)
public class FilterStatusCacheConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FilterStatusCache bloomGuardFilterStatusCache(BloomFilterRegistry registry, BloomGuardProperties properties,
            ObjectProvider<BitmapStore> store) {
        return new FilterStatusCache(registry, store.getIfUnique(), properties.getStatusRefreshInterval());
    }
}
