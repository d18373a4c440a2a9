package dev.bloomguard.test.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.test.memory.InMemoryBitmapStore;

/**
 * The filters' store in this JVM's memory, for {@link AutoConfigureBloomGuardInMemory}: declared
 * before the starter's auto-configuration, whose Redis store and connection step aside for any
 * {@code BitmapStore} bean. Not in {@code AutoConfiguration.imports}: only the annotation
 * brings it, never the artifact's mere presence on a test class path.
 */
@AutoConfiguration(beforeName = "dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration")
@ConditionalOnClass(name = "dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration")
public class BloomGuardInMemoryAutoConfiguration {

    /** Closed with the context, which stops its pub/sub thread. */
    @Bean
    @ConditionalOnMissingBean(BitmapStore.class)
    public InMemoryBitmapStore bloomGuardInMemoryBitmapStore() {
        return InMemoryBitmapStore.create();
    }
}
