package dev.bloomguard.spring.data.jpa;

import java.util.List;
import java.util.Optional;

import org.springframework.data.jpa.repository.JpaRepository;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomPut;

interface CustomerRepository extends JpaRepository<Customer, Long> {

    @BloomGuard(filter = "customer", key = "#id")
    Optional<Customer> findById(Long id);

    @BloomGuard(filter = "customer-name", key = "#name")
    List<Customer> findByName(String name);

    @BloomPut(filter = "customer", key = "#result.id")
    <S extends Customer> S save(S customer);
}
