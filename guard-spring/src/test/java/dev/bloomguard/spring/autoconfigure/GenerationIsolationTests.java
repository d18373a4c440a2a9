package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * The one guard-spring jar runs on Spring Boot 3 and 4 because only a few classes touch a type
 * that exists in one generation alone, and those are reached only through a by-name class
 * condition. This reads every class file of the starter (the jar or the build output, whichever
 * this generation's tests run against) for references to such types, as the JVM would resolve
 * them: names in a class-condition string do not count, a loaded type does.
 */
class GenerationIsolationTests {

    /** Packages of types that exist in one generation only, with the only classes allowed to use them. */
    private static final Map<String, Set<String>> ONE_GENERATION_PACKAGES = Map.of(
            "org/springframework/boot/health/", Set.of(
                    "dev/bloomguard/spring/boot4/Boot4HealthIndicator.class",
                    "dev/bloomguard/spring/boot4/BloomGuardBoot4HealthAutoConfiguration.class"),
            "org/springframework/boot/actuate/health/", Set.of(
                    "dev/bloomguard/spring/actuate/BloomGuardHealthIndicator.class",
                    "dev/bloomguard/spring/autoconfigure/BloomGuardHealthAutoConfiguration.class"),
            "org/springframework/boot/actuate/autoconfigure/health/", Set.of(
                    "dev/bloomguard/spring/autoconfigure/BloomGuardHealthAutoConfiguration.class"),
            "org/springframework/boot/data/redis/", Set.of(
                    "dev/bloomguard/spring/boot4/Boot4RedisConnectionDetailsReader.class",
                    "dev/bloomguard/spring/boot4/BloomGuardBoot4RedisAutoConfiguration.class"),
            "org/springframework/boot/autoconfigure/data/redis/", Set.of(
                    "dev/bloomguard/spring/autoconfigure/Boot3RedisConnectionDetailsReader.class",
                    "dev/bloomguard/spring/autoconfigure/BloomGuardRedisConfiguration$Boot3ConnectionDetails.class"));

    @Test
    void onlyTheGenerationSpecificClassesReferToTypesOfOneGeneration() throws IOException {
        Resource[] classes = new PathMatchingResourcePatternResolver(getClass().getClassLoader())
                .getResources("classpath*:dev/bloomguard/spring/**/*.class");
        List<String> starterClasses = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        for (Resource resource : classes) {
            String url = resource.getURL().toString();
            if (url.contains("test-classes")) {
                continue;
            }
            String name = url.substring(url.lastIndexOf("dev/bloomguard/spring/"));
            starterClasses.add(name);
            String constants = new String(resource.getContentAsByteArray(), StandardCharsets.ISO_8859_1);
            ONE_GENERATION_PACKAGES.forEach((boundPackage, allowed) -> {
                if (constants.contains(boundPackage) && !allowed.contains(name)) {
                    violations.add(name + " refers to " + boundPackage);
                }
            });
        }
        assertThat(starterClasses).as("the starter's classes").contains(
                "dev/bloomguard/spring/autoconfigure/BloomGuardAutoConfiguration.class",
                "dev/bloomguard/spring/boot4/Boot4HealthIndicator.class");
        assertThat(violations).isEmpty();
    }
}
