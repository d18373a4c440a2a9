package dev.bloomguard.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The major version of a {@code redis-server} binary, asked once per binary. */
final class RedisVersion {

    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.");
    private static final Map<Path, Integer> MAJOR = new ConcurrentHashMap<>();

    private RedisVersion() {
    }

    /** The major version {@code redis-server --version} prints ("Redis server v=7.0.15 ..."). */
    static int major(Path binary) {
        return MAJOR.computeIfAbsent(binary, RedisVersion::ask);
    }

    private static int ask(Path binary) {
        try {
            Process version = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String output = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            version.waitFor();
            Matcher matcher = VERSION.matcher(output);
            if (!matcher.find()) {
                throw new IllegalStateException(binary + " --version printed no version: " + output);
            }
            return Integer.parseInt(matcher.group(1));
        }
        catch (IOException ex) {
            throw new UncheckedIOException("could not run " + binary + " --version", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + binary + " --version", ex);
        }
    }
}
