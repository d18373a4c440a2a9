package dev.bloomguard.spring.data.r2dbc;

import org.springframework.data.repository.reactive.ReactiveCrudRepository;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomPut;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

interface ItemRepository extends ReactiveCrudRepository<Item, Long> {

    @BloomGuard(filter = "item", key = "#id")
    Mono<Item> findById(Long id);

    @BloomGuard(filter = "item-label", key = "#label")
    Flux<Item> findByLabel(String label);

    @BloomPut(filter = "item", key = "#result.id")
    <S extends Item> Mono<S> save(S item);
}
