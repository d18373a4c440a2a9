package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.bloomguard.core.Membership;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;

/**
 * An annotation Spring's proxy can never apply (a method that is not public, a final method
 * under a class-based proxy, a static method, a method no interface of a JDK proxy declares)
 * is named in a WARN at startup, instead of being silently ignored.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnguardedMethodWarningTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BootNames.redisAutoConfiguration(),
                    BloomGuardAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=unguarded", "bloom-guard.filters.user.expected-insertions=1000");

    @Test
    void warnsAtStartupNamingEachAnnotatedMethodTheProxyCannotApply(CapturedOutput output) {
        runner.withUserConfiguration(ClassProxied.class).run(context -> {
            assertThat(context).hasNotFailed();
            Service service = context.getBean(Service.class);
            context.getBean(BloomFilterRegistry.class).filter("user").load(LongStream.rangeClosed(1, 10).boxed());
            long absent = LongStream.rangeClosed(1_000, 100_000)
                    .filter(id -> context.getBean(BloomFilterRegistry.class).filter("user").check(id) == Membership.ABSENT)
                    .findFirst().orElseThrow();
            assertThatThrownBy(() -> service.guarded(absent)).as("the public method is guarded")
                    .isInstanceOf(BloomGuardRejectedException.class);
            assertThat(service.finalMethod(absent)).as("the final method is not").isEqualTo("final");
        });

        assertThat(output).contains("WARN").contains(Service.class.getName() + ".packagePrivate", "not public")
                .contains(Service.class.getName() + ".protectedMethod").contains(Service.class.getName() + ".privateMethod")
                .contains(Service.class.getName() + ".finalMethod", "final").contains(Service.class.getName() + ".staticMethod", "static")
                .doesNotContain(Service.class.getName() + ".guarded ");
    }

    @Test
    void warnsAboutAPublicMethodThatNoInterfaceOfAJdkProxyDeclares(CapturedOutput output) {
        runner.withUserConfiguration(InterfaceProxied.class).withPropertyValues("spring.aop.proxy-target-class=false")
                .run(context -> assertThat(context).hasNotFailed());

        assertThat(output).contains("WARN").contains(Implementation.class.getName() + ".notOnTheInterface", "interface")
                .doesNotContain(Implementation.class.getName() + ".find ")
                .doesNotContain(Implementation.class.getName() + ".findGeneric ");
    }

    public static class Service {

        @BloomGuard(filter = "user", key = "#id")
        public String guarded(long id) {
            return "guarded";
        }

        @BloomGuard(filter = "user", key = "#id")
        public final String finalMethod(long id) {
            return "final";
        }

        @BloomGuard(filter = "user", key = "#id")
        String packagePrivate(long id) {
            return privateMethod(id);
        }

        @BloomPut(filter = "user", key = "#result")
        protected long protectedMethod(long id) {
            return id;
        }

        @BloomGuard(filter = "user", key = "#id")
        private String privateMethod(long id) {
            return "private";
        }

        @BloomGuard(filter = "user", key = "#id")
        public static String staticMethod(long id) {
            return "static";
        }
    }

    public interface Finder {

        @BloomGuard(filter = "user", key = "#id")
        String find(long id);
    }

    public interface GenericFinder<K> {

        @BloomGuard(filter = "user", key = "#id")
        String findGeneric(K id);
    }

    public static class Implementation implements Finder, GenericFinder<Long> {

        @Override
        public String findGeneric(Long id) {
            return "found";
        }

        @Override
        public String find(long id) {
            return "found";
        }

        @BloomGuard(filter = "user", key = "#id")
        public String notOnTheInterface(long id) {
            return "hidden";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClassProxied {
        @Bean
        Service service() {
            return new Service();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class InterfaceProxied {
        @Bean
        Implementation implementation() {
            return new Implementation();
        }
    }
}
