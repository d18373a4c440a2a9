package dev.bloomguard.spring;

import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Plain HTTP to the test's own server, the same on Spring Boot 3 and 4 (whose
 * {@code TestRestTemplate} moved): Spring's {@code RestClient}, every status returned rather than
 * thrown, bodies as text. JSON is read with Jackson 2, which both generations' test class paths have.
 */
public final class TestHttp {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RestClient client;

    public TestHttp(int port) {
        this.client = RestClient.builder().baseUrl("http://localhost:" + port)
                .defaultStatusHandler(status -> true, (request, response) -> {
                })
                .build();
    }

    public ResponseEntity<String> get(String path) {
        return client.get().uri(path).retrieve().toEntity(String.class);
    }

    public ResponseEntity<String> post(String path) {
        return client.post().uri(path).retrieve().toEntity(String.class);
    }

    public static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        }
        catch (JsonProcessingException ex) {
            throw new AssertionError("not JSON: " + body, ex);
        }
    }
}
