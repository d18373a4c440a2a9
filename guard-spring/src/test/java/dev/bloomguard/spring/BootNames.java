package dev.bloomguard.spring;

import java.util.Arrays;
import java.util.Objects;

import org.springframework.util.ClassUtils;

/**
 * Spring Boot classes that moved between generations (3.5 and 4.0), named both ways so that the
 * same test sources run on either. Names that do not exist on the running generation are
 * simply not found; each lookup insists that one of its names is.
 */
public final class BootNames {

    public static final String DATA_SOURCE_3 = "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration";
    public static final String DATA_SOURCE_4 = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";
    public static final String REDIS_3 = "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration";
    public static final String REDIS_4 = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration";
    /** Only on the Spring Data tests' class path: an R2DBC connection factory turns off Boot's DataSource. */
    public static final String R2DBC_3 = "org.springframework.boot.autoconfigure.r2dbc.R2dbcAutoConfiguration";
    public static final String R2DBC_4 = "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration";
    /** Spring Data JDBC's repositories, which refuse a reactive repository they find next to R2DBC's. */
    public static final String JDBC_REPOSITORIES_3 = "org.springframework.boot.autoconfigure.data.jdbc.JdbcRepositoriesAutoConfiguration";
    public static final String JDBC_REPOSITORIES_4 = "org.springframework.boot.data.jdbc.autoconfigure.DataJdbcRepositoriesAutoConfiguration";
    /** Where an application's Redis is, when a bean (Testcontainers, Docker Compose, the application) says so. */
    public static final String REDIS_CONNECTION_DETAILS_3 = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails";
    public static final String REDIS_CONNECTION_DETAILS_4 = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";
    /** Did not move. */
    public static final String AOP = "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration";

    private BootNames() {
    }

    public static Class<?> redisAutoConfiguration() {
        return first(REDIS_3, REDIS_4);
    }

    public static Class<?> dataSourceAutoConfiguration() {
        return first(DATA_SOURCE_3, DATA_SOURCE_4);
    }

    public static Class<?> redisConnectionDetails() {
        return first(REDIS_CONNECTION_DETAILS_3, REDIS_CONNECTION_DETAILS_4);
    }

    public static Class<?> aopAutoConfiguration() {
        return first(AOP);
    }

    /** True when the running Spring Boot is 4.x. */
    public static boolean isBoot4() {
        return ClassUtils.isPresent(REDIS_4, BootNames.class.getClassLoader());
    }

    /** The first of {@code names} that is on the class path. */
    public static Class<?> first(String... names) {
        ClassLoader loader = BootNames.class.getClassLoader();
        return Arrays.stream(names).filter(name -> ClassUtils.isPresent(name, loader))
                .map(name -> ClassUtils.resolveClassName(name, loader)).filter(Objects::nonNull).findFirst()
                .orElseThrow(() -> new IllegalStateException("None of " + Arrays.toString(names)
                        + " is on the class path of this Spring Boot generation"));
    }
}
