package dev.bloomguard.test.spring.example;

import static org.mockito.BDDMockito.given;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.web.servlet.WebMvcTest;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.web.BloomGuardRejectedExceptionHandler;

/**
 * A web slice with no bloom-guard annotation on it and the service mocked, as a team tests a
 * controller alone: a rejection the mock throws is still the application's 404, because the
 * starter's Spring MVC auto-configuration is part of every {@code @WebMvcTest}, as the advice would
 * be were it the application's own. Spring Boot 3's {@code @WebMvcTest}; compat/boot4-starter-tests
 * runs this class with Spring Boot 4's (spring-boot-webmvc-test), the one import changed.
 */
@WebMvcTest(UserController.class)
class UserControllerMockedServiceTests {

    @Autowired
    MockMvc mvc;

    @MockitoBean
    UserService users;

    @Test
    void aRejectionThrownByTheServiceAnswersNotFound() throws Exception {
        given(users.find(99L)).willThrow(new BloomGuardRejectedException("user", "UserService.find"));

        mvc.perform(get("/users/99"))
                .andExpect(status().isNotFound())
                .andExpect(status().reason(BloomGuardRejectedExceptionHandler.DETAIL));
    }
}
