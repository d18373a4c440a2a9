package dev.bloomguard.test.spring.example;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.web.servlet.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.MockMvc;

import dev.bloomguard.test.spring.AutoConfigureBloomGuardInMemory;
import dev.bloomguard.test.spring.BloomGuardTester;

/**
 * The documentation's web slice: the controller under {@code @WebMvcTest}, the real (imported)
 * service behind it, the filters in memory. The 404 is the starter's, for the rejection the tester
 * counted: the controller has no error handling of its own. Spring Boot 3's {@code @WebMvcTest};
 * Spring Boot 4 moved it to another package (spring-boot-webmvc-test), and compat/boot4-starter-tests
 * runs this class with that one import changed.
 */
@WebMvcTest(controllers = UserController.class)
@Import(UserService.class)
@AutoConfigureBloomGuardInMemory
class UserControllerTests {

    @Autowired
    MockMvc mvc;

    @Autowired
    BloomGuardTester bloomGuard;

    @Test
    void answersAUserThatExistsAndNotFoundForOneThatDoesNot() {
        bloomGuard.preload("user", 1L, 2L);

        bloomGuard.assertPassed(() -> mvc.perform(get("/users/1"))
                .andExpect(status().isOk())
                .andExpect(content().string("user 1")));
        bloomGuard.assertRejected(() -> mvc.perform(get("/users/99"))
                .andExpect(status().isNotFound()));
    }
}
