package dev.bloomguard.demo;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The dashboard's attack simulator: {@code POST /attack} starts a burst
 * ({@code rate}, {@code seconds}, {@code mix}, {@code guard} as form or query parameters),
 * {@code DELETE /attack} stops it, {@code GET /attack} shows it and the last burst with and
 * without the guard.
 *
 * <p>The parameters are read as text and checked by {@link AttackPlan#parse}, so every bad value
 * answers 400 with a ProblemDetail whose detail names the field, the same on Spring Boot 3 and 4.
 */
@RestController
class AttackController {

    private final AttackSimulator simulator;

    AttackController(AttackSimulator simulator) {
        this.simulator = simulator;
    }

    /** 202: the burst runs in the background; 409 when one is running already. */
    @PostMapping("/attack")
    @ResponseStatus(HttpStatus.ACCEPTED)
    AttackSimulator.Burst start(@RequestParam(required = false) String rate,
            @RequestParam(required = false) String seconds, @RequestParam(required = false) String mix,
            @RequestParam(required = false) String guard) {
        AttackPlan plan;
        try {
            plan = AttackPlan.parse(rate, seconds, mix, guard);
        }
        catch (IllegalArgumentException ex) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, ex.getMessage());
        }
        try {
            return simulator.start(plan);
        }
        catch (IllegalStateException ex) {
            throw new ResponseStatusException(HttpStatus.CONFLICT, ex.getMessage());
        }
    }

    @DeleteMapping("/attack")
    AttackSimulator.Status stop() {
        return simulator.stop();
    }

    @GetMapping("/attack")
    AttackSimulator.Status status() {
        return simulator.status();
    }
}
