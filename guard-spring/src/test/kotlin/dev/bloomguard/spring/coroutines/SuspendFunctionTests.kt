package dev.bloomguard.spring.coroutines

import dev.bloomguard.core.Membership
import dev.bloomguard.spring.BloomFilterRegistry
import dev.bloomguard.spring.BloomGuard
import dev.bloomguard.spring.BloomGuardRejectedException
import dev.bloomguard.spring.BloomPut
import dev.bloomguard.spring.BootNames
import dev.bloomguard.spring.RealServers
import java.util.concurrent.atomic.AtomicInteger
import java.util.stream.LongStream
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.context.annotation.Bean
import org.springframework.test.context.DynamicPropertyRegistry
import org.springframework.test.context.DynamicPropertySource

/**
 * Kotlin `suspend` functions are guarded like a method returning a `Mono`: the check does not
 * block, the function runs only once its key is admitted, and `#result` of `@BloomPut` is the
 * function's value.
 */
@SpringBootTest(
    classes = [SuspendFunctionTests.App::class],
    properties = [
        "bloom-guard.key-prefix=suspending",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.thing.expected-insertions=10000",
    ],
)
class SuspendFunctionTests {

    companion object {
        @JvmStatic
        @DynamicPropertySource
        fun redis(registry: DynamicPropertyRegistry) = RealServers.registerRedis(registry)
    }

    @Autowired
    lateinit var things: Things

    @Autowired
    lateinit var registry: BloomFilterRegistry

    @BeforeEach
    fun load() {
        registry.filter("thing").load(LongStream.rangeClosed(1, 1_000).boxed())
    }

    @Test
    fun presentKeysRunTheFunctionAndAbsentOnesAreRejectedBeforeIt(): Unit = runBlocking {
        for (id in 1L..1_000L) {
            assertThat(things.find(id)).isEqualTo("thing $id")
        }
        val before = things.calls.get()
        val absent = (100_001L..101_000L).filter { registry.filter("thing").check(it) == Membership.ABSENT }
        assertThat(absent).hasSizeGreaterThan(950)
        var rejected = 0
        for (id in absent) {
            try {
                things.find(id)
            } catch (ex: BloomGuardRejectedException) {
                rejected++
            }
        }
        assertThat(rejected).isEqualTo(absent.size)
        assertThat(things.calls.get()).`as`("the function never ran for a rejected key").isEqualTo(before)
    }

    @Test
    fun aKeyPutFromTheFunctionsValuePassesAtOnce(): Unit = runBlocking {
        val id = (200_001L..300_000L).first { registry.filter("thing").check(it) == Membership.ABSENT }
        assertThatThrownBy { runBlocking { things.find(id) } }.isInstanceOf(BloomGuardRejectedException::class.java)
        assertThat(things.create(id)).isEqualTo(id)
        assertThat(things.find(id)).isEqualTo("thing $id")
    }

    open class Things {
        open val calls = AtomicInteger()

        @BloomGuard(filter = "thing", key = "#id")
        open suspend fun find(id: Long): String {
            delay(1)
            calls.incrementAndGet()
            return "thing $id"
        }

        @BloomPut(filter = "thing", key = "#result")
        open suspend fun create(id: Long): Long {
            delay(1)
            return id
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = [BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4])
    open class App {
        @Bean
        open fun things() = Things()
    }
}
