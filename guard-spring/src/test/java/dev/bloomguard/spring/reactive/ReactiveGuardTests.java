package dev.bloomguard.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.web.OwnRejectionHandler;
import dev.bloomguard.testsupport.AbsentKeys;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Guarded {@code Mono}/{@code Flux} methods in a WebFlux application on real Redis, with
 * BlockHound installed for the whole JVM (this package runs in a fork of its own): a blocking
 * call on a Netty, Lettuce or Reactor non-blocking thread throws {@link BlockingOperationError},
 * which fails the request or the subscription, and so the test.
 */
@SpringBootTest(classes = ReactiveGuardTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "spring.main.web-application-type=reactive", "spring.webflux.problemdetails.enabled=true",
                "bloom-guard.key-prefix=reactive",
                "bloom-guard.redis-timeout=5s",
                "bloom-guard.filters.thing.expected-insertions=1000",
                "bloom-guard.filters.quiet.expected-insertions=1000",
                "bloom-guard.filters.quiet.on-absent=return-empty",
                "bloom-guard.filters.mirrored.expected-insertions=1000",
                "bloom-guard.filters.mirrored.local-mirror.enabled=true" })
class ReactiveGuardTests extends AbstractServedApplicationTests {

    /**
     * Lettuce's own short writer lock may park under contention; that is not I/O, and an error
     * thrown from inside it would corrupt its writer count (DefaultEndpoint.write decrements in a
     * finally what a failed incrementWriters never incremented) and hang every later command.
     */
    static {
        BlockHound.install(builder -> builder
                .nonBlockingThreadPredicate(current -> current.or(
                        thread -> thread.getName().startsWith("lettuce-") || thread.getName().startsWith("reactor-http-")))
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "lockWritersExclusive"));
    }

    @Autowired
    ThingRepository things;

    private WebTestClient http;

    @BeforeEach
    void loadFilters() {
        for (String name : List.of("thing", "quiet", "mirrored")) {
            registry.filter(name).load(LongStream.rangeClosed(1, 100).boxed());
        }
        http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).responseTimeout(Duration.ofSeconds(10))
                .build();
    }

    @Test
    void theTestFailsOnABlockingCallOnANonBlockingThread() {
        Mono<String> sleeps = Mono.fromCallable(() -> {
            Thread.sleep(1);
            return "slept";
        }).subscribeOn(Schedulers.parallel());

        assertThatThrownBy(sleeps::block).hasRootCauseInstanceOf(BlockingOperationError.class);
    }

    /**
     * The plain method's check waits for Redis's reply; the wait parks the thread unless the
     * reply happens to be there first, so of a few tries at least one must be caught.
     */
    @Test
    void theBlockingCheckOfAPlainMethodIsCaughtOnANonBlockingThread() {
        Mono<Object> blockingCheck = Mono.fromCallable(() -> (Object) things.findNow(42L)).subscribeOn(Schedulers.parallel());
        List<Throwable> caught = new ArrayList<>();
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                blockingCheck.block();
            }
            catch (RuntimeException ex) {
                caught.add(ex);
            }
        }

        assertThat(caught).isNotEmpty()
                .allSatisfy(ex -> assertThat(ex).hasRootCauseInstanceOf(BlockingOperationError.class));
    }

    @Test
    void presentKeyIsServedAndAbsentKeyIsNotFoundOverHttpWithoutReachingTheRepository() {
        long absent = absentKey("thing");
        http.get().uri("/things/42").exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("thing 42");
        int before = things.calls();

        http.get().uri("/things/" + absent).exchange()
                .expectStatus().isNotFound()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody(String.class).value(body -> assertThat(body).contains("\"status\":404")
                        .contains("\"detail\":\"The requested resource does not exist.\""));

        assertThat(things.calls()).isEqualTo(before);
    }

    @Test
    void functionalEndpointsGetTheSame404() {
        long absent = absentKey("thing");
        http.get().uri("/routed/things/5").exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("thing 5");
        int before = things.calls();

        http.get().uri("/routed/things/" + absent).exchange()
                .expectStatus().isNotFound()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.status").isEqualTo(404)
                .jsonPath("$.title").isEqualTo("Not Found")
                .jsonPath("$.detail").isEqualTo("The requested resource does not exist.")
                .jsonPath("$.instance").isEqualTo("/routed/things/" + absent);

        assertThat(things.calls()).isEqualTo(before);
        http.get().uri("/routed/broken").exchange().expectStatus().is5xxServerError();
    }

    @Test
    void rejectionIsAnErrorSignalNotAThrowAndNothingRunsBeforeSubscription() {
        long absent = absentKey("thing");
        int before = things.calls();

        Mono<String> rejected = things.find(absent);
        Mono<String> admitted = things.find(7L);

        assertThat(things.calls()).as("assembling a guarded Mono calls nothing").isEqualTo(before);
        assertThatThrownBy(rejected::block).isInstanceOf(BloomGuardRejectedException.class)
                .hasMessageContaining("filter 'thing'");
        assertThat(admitted.block()).isEqualTo("thing 7");
        assertThat(admitted.block()).isEqualTo("thing 7");
        assertThat(things.calls()).as("each subscription runs the method once").isEqualTo(before + 2);
    }

    @Test
    void returnEmptyCompletesMonoAndFluxEmpty() {
        long absent = absentKey("quiet");
        long otherAbsent = LongStream.rangeClosed(absent + 1, absent + 5_000)
                .filter(id -> registry.filter("quiet").check(id) == Membership.ABSENT).findFirst().orElseThrow();
        int before = things.calls();

        assertThat(things.findQuietly(absent).hasElement().block()).isFalse();
        assertThat(things.findAllQuietly(List.of(absent, otherAbsent)).collectList().block()).isEmpty();
        assertThat(things.calls()).isEqualTo(before);

        assertThat(things.findQuietly(3L).block()).isEqualTo("thing 3");
        assertThat(things.findAllQuietly(List.of(absent, 3L, 4L)).collectList().block())
                .as("a batch with any present key runs").containsExactly("thing " + absent, "thing 3", "thing 4");
    }

    @Test
    void bloomPutAddsTheKeyOfEachEmittedValueOnlyOnSubscription() {
        RedisBloomFilter filter = registry.filter("thing");
        List<Long> fresh = absentKeys(filter, 4);

        Mono<Long> saveOne = things.save(fresh.get(0));
        assertThat(filter.check(fresh.get(0))).as("not subscribed, not added").isEqualTo(Membership.ABSENT);
        assertThat(saveOne.block()).isEqualTo(fresh.get(0));
        assertThat(filter.check(fresh.get(0))).isEqualTo(Membership.PRESENT);

        assertThat(things.saveAll(fresh.subList(1, 4)).collectList().block()).containsExactlyElementsOf(fresh.subList(1, 4));
        assertThat(filter.checkAll(fresh.subList(1, 4))).containsOnly(Membership.PRESENT);
        http.get().uri("/things/" + fresh.get(3)).exchange().expectStatus().isOk();
    }

    @Test
    void guardedCallsSubscribedOnNonBlockingThreadsNeverBlock() {
        long absentThing = absentKey("thing");
        long absentMirrored = absentKey("mirrored");
        List<Mono<String>> calls = new ArrayList<>();
        for (int round = 0; round < 50; round++) {
            long present = 1 + round;
            calls.add(things.find(present));
            calls.add(things.find(absentThing).onErrorReturn(BloomGuardRejectedException.class, "rejected"));
            calls.add(things.findMirrored(present));
            calls.add(things.findMirrored(absentMirrored).onErrorReturn(BloomGuardRejectedException.class, "rejected"));
        }

        List<String> answers = Flux.fromIterable(calls)
                .flatMapSequential(call -> call.subscribeOn(Schedulers.parallel()), 8)
                .collectList().block(Duration.ofSeconds(30));

        assertThat(answers).hasSize(200);
        for (int round = 0; round < 50; round++) {
            assertThat(answers.subList(round * 4, round * 4 + 4)).containsExactly("thing " + (1 + round), "rejected",
                    "thing " + (1 + round), "rejected");
        }
        assertThat(registry.filter("mirrored").mirrorStats().orElseThrow().hits())
                .as("the mirror answered some present keys without Redis").isPositive();
    }

    private long absentKey(String filter) {
        return absentKeys(registry.filter(filter), 1).get(0);
    }

    static List<Long> absentKeys(RedisBloomFilter filter, int count) {
        return AbsentKeys.first(count, LongStream.rangeClosed(1_000, 100_000), id -> filter.check(id) == Membership.ABSENT);
    }

    public static class ThingRepository {

        private final AtomicInteger calls = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        @BloomGuard(filter = "thing", key = "#id")
        public Mono<String> find(long id) {
            calls.incrementAndGet();
            return Mono.just("thing " + id);
        }

        @BloomGuard(filter = "thing", key = "#id")
        public String findNow(long id) {
            calls.incrementAndGet();
            return "thing " + id;
        }

        @BloomGuard(filter = "mirrored", key = "#id")
        public Mono<String> findMirrored(long id) {
            calls.incrementAndGet();
            return Mono.fromSupplier(() -> "thing " + id);
        }

        @BloomGuard(filter = "quiet", key = "#id")
        public Mono<String> findQuietly(long id) {
            calls.incrementAndGet();
            return Mono.just("thing " + id);
        }

        @BloomGuard(filter = "quiet", key = "#ids")
        public Flux<String> findAllQuietly(List<Long> ids) {
            calls.incrementAndGet();
            return Flux.fromIterable(ids).map(id -> "thing " + id);
        }

        @BloomPut(filter = "thing", key = "#result")
        public Mono<Long> save(long id) {
            return Mono.fromSupplier(() -> id);
        }

        @BloomPut(filter = "thing", key = "#result")
        public Flux<Long> saveAll(List<Long> ids) {
            return Flux.fromIterable(ids);
        }
    }

    @RestController
    static class ThingController {

        private final ThingRepository things;

        ThingController(ThingRepository things) {
            this.things = things;
        }

        @GetMapping("/things/{id}")
        Mono<String> thing(@PathVariable long id) {
            return things.find(id);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4 })
    @Import({ ThingRepository.class, ThingController.class })
    static class App {

        @Bean
        OwnRejectionHandler.OwnThingController ownThingController(ThingRepository things) {
            return new OwnRejectionHandler.OwnThingController(id -> things.find(Long.parseLong(id)));
        }

        @Bean
        OwnRejectionHandler ownRejectionHandler() {
            return new OwnRejectionHandler();
        }

        @Bean
        RouterFunction<ServerResponse> routedThings(ThingRepository things) {
            return RouterFunctions.route()
                    .GET("/routed/things/{id}", request -> things.find(Long.parseLong(request.pathVariable("id")))
                            .flatMap(thing -> ServerResponse.ok().bodyValue(thing)))
                    .GET("/routed/broken", request -> Mono.error(new IllegalStateException("not a rejection")))
                    .build();
        }
    }
}
