package dev.bloomguard.spring.boot4;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.spring.autoconfigure.RedisConnectionDetailsReader;

/**
 * Reads Spring Boot 4's {@code DataRedisConnectionDetails} for the starter's own Redis connection
 * (an application on Jedis or Redisson whose Redis a Testcontainers {@code @ServiceConnection},
 * Docker Compose or a bean of its own describes); the Boot 3.5 reader lives beside the connection's
 * configuration. The class condition is by name and read before this class is loaded, so Boot 3
 * never loads it.
 */
@AutoConfiguration
@ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
public class BloomGuardBoot4RedisAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RedisConnectionDetailsReader bloomGuardRedisConnectionDetailsReader(ObjectProvider<DataRedisConnectionDetails> details) {
        return new Boot4RedisConnectionDetailsReader(details);
    }
}
