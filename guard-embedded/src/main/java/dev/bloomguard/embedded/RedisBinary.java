package dev.bloomguard.embedded;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Which {@code redis-server} binary a {@link RedisServer} runs. The one shipped inside
 * {@code com.github.codemonstur:embedded-redis} (Redis 6.2) is copied to the temporary directory
 * under a fixed name, once per machine: written to a part file and moved into place atomically,
 * so that test JVMs starting at once never run a half-written binary.
 */
final class RedisBinary {

    private static final String SHIPPED_LINUX_AMD64 = "/redis-server-6.2.6-v5-linux-amd64";
    private static final String SHIPPED_LINUX_ARM64 = "/redis-server-6.2.7-linux-arm64";
    private static final String SHIPPED_DARWIN_AMD64 = "/redis-server-6.2.6-v5-darwin-amd64";
    private static final String SHIPPED_DARWIN_ARM64 = "/redis-server-6.2.6-v5-darwin-arm64";

    private RedisBinary() {
    }

    /**
     * {@code BLOOMGUARD_REDIS_SERVER} when set, else the first {@code redis-server} on {@code PATH},
     * else the shipped binary, extracted once per machine.
     */
    static Path locate() throws IOException {
        String override = System.getenv("BLOOMGUARD_REDIS_SERVER");
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String directory : path.split(File.pathSeparator)) {
                Path candidate = Path.of(directory, "redis-server");
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return extractShippedBinary();
    }

    private static Path extractShippedBinary() throws IOException {
        String resource = shippedResourceName();
        Path target = Path.of(System.getProperty("java.io.tmpdir"), "bloomguard" + resource);
        if (Files.isExecutable(target)) {
            return target;
        }
        try (InputStream in = RedisBinary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("No redis-server on PATH and " + resource
                        + " is not on the classpath (add com.github.codemonstur:embedded-redis)");
            }
            Files.createDirectories(target.getParent());
            Path temporary = Files.createTempFile(target.getParent(), "redis-server", ".part");
            Files.copy(in, temporary, StandardCopyOption.REPLACE_EXISTING);
            if (!temporary.toFile().setExecutable(true)) {
                throw new IOException("Could not make " + temporary + " executable");
            }
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return target;
    }

    private static String shippedResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        boolean arm = System.getProperty("os.arch").toLowerCase(Locale.ROOT).contains("aarch64");
        if (os.contains("linux")) {
            return arm ? SHIPPED_LINUX_ARM64 : SHIPPED_LINUX_AMD64;
        }
        if (os.contains("mac")) {
            return arm ? SHIPPED_DARWIN_ARM64 : SHIPPED_DARWIN_AMD64;
        }
        throw new IllegalStateException("No shipped redis-server for " + os + "; put redis-server on PATH");
    }
}
