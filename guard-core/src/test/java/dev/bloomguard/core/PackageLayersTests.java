package dev.bloomguard.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.rollout.Generation;

/**
 * guard-core's packages form no import circle. The root package holds the public types every
 * other package may use (answers, geometry, keys, events, reasons to hold) and imports none of the
 * engine; the engine's packages use it and one another in one direction; the façade
 * ({@code filter}) sits on top and wires them, and only {@code upkeep} sits above it. A circle would
 * let any change reach every package, which is how the reasons not to block came to be decided
 * in seven places.
 */
class PackageLayersTests {

    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("dev.bloomguard.core");

    @Test
    void noPackageOfTheCoreIsInAnImportCircle() {
        // "dev.bloomguard.(**)" makes each package one slice, the root package ("core") included.
        slices().matching("dev.bloomguard.(**)").namingSlices("$1")
                .should().beFreeOfCycles()
                .check(CORE);
    }

    @Test
    void theRootPackageImportsNoEnginePackage() {
        // The public types depend on nothing but the hashing of keys, the Redis boundary and the
        // argument checks: the engine is below them and never the other way round.
        Set<String> allowed = Set.of("dev.bloomguard.core", "dev.bloomguard.core.hash", "dev.bloomguard.core.redis",
                "dev.bloomguard.core.internal");
        Set<String> imported = new TreeSet<>();
        for (JavaClass type : CORE) {
            if (type.getPackageName().equals("dev.bloomguard.core")) {
                type.getDirectDependenciesFromSelf().forEach(dependency -> {
                    String target = dependency.getTargetClass().getPackageName();
                    if (target.startsWith("dev.bloomguard.core") && !allowed.contains(target)) {
                        imported.add(dependency.getOriginClass().getSimpleName() + " -> " + target);
                    }
                });
            }
        }
        assertThat(imported).as("engine packages the root package imports").isEmpty();
    }

    @Test
    void aFilterNeverBuildsAFilter() {
        // A filter's other generations (a rolling change, an auto-resize) are its parts, built
        // without a façade, listeners or verdict of their own: no code of the core builds a
        // RedisBloomFilter, which only its users do. Found before: FilterParts built each other
        // generation as a filter inside the filter.
        noClasses().should().callMethod(RedisBloomFilter.Builder.class, "build")
                .as("no class of guard-core builds a RedisBloomFilter (a generation is a part, not a filter)")
                .check(CORE);
        Set<String> generations = new TreeSet<>();
        CORE.get(Generation.class).getAllSubclasses().forEach(type -> generations.add(type.getSimpleName()));
        assertThat(generations).as("what a rolling change sees as a generation").containsExactly("FilterParts");
    }

    @Test
    void theRulesSeeEveryPackage() {
        // A rule over an empty or partial import passes whatever the code does.
        Set<String> packages = new TreeSet<>();
        CORE.forEach(type -> packages.add(type.getPackageName()));
        assertThat(packages).contains("dev.bloomguard.core", "dev.bloomguard.core.check", "dev.bloomguard.core.rollout",
                "dev.bloomguard.core.load", "dev.bloomguard.core.write", "dev.bloomguard.core.mirror",
                "dev.bloomguard.core.redis");
        assertThat(packages.size()).isGreaterThanOrEqualTo(13);
    }
}
