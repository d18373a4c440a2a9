package dev.bloomguard.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.bloomguard.embedded.RedisServer;

/**
 * A real redis-server that speaks TLS, of its own for one test class:
 * {@code @RegisterExtension static final RedisTlsExtension TLS = new RedisTlsExtension();}.
 * Its certificate is self-signed, made at start by the JDK's {@code keytool} for
 * {@code localhost} and {@code 127.0.0.1}, so a client trusts it only when given
 * {@link #certificate()} (a PEM file, what {@code spring.ssl.bundle.pem.*.truststore.certificate}
 * reads): a test that connects proves that its trust material reached the client.
 *
 * <p>The one thing to get right: the server listens twice, TLS on {@link #tlsPort()} and plain
 * text on {@link #server()}'s port, the latter only for the test's own look at what Redis holds.
 * The code under test is given the TLS port, or the test proves nothing about TLS. The Redis 6.2
 * binary shipped in embedded-redis and Debian's Redis 7 both have TLS built in; a binary without
 * it fails to start, loudly.
 */
public final class RedisTlsExtension implements BeforeAllCallback, AfterAllCallback {

    private static final String STORE_PASSWORD = "bloom-guard-test";

    private Path directory;
    private RedisServer server;
    private int tlsPort;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        directory = Files.createTempDirectory("bloomguard-redis-tls-");
        Path certificate = directory.resolve("redis.crt");
        Path key = directory.resolve("redis.key");
        selfSigned(directory.resolve("redis.p12"), certificate, key);
        tlsPort = RedisServer.freePort();
        server = RedisServer.start("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", certificate.toString(),
                "--tls-key-file", key.toString(), "--tls-ca-cert-file", certificate.toString(), "--tls-auth-clients", "no");
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
        if (directory != null) {
            try (Stream<Path> paths = Files.walk(directory)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
            directory = null;
        }
    }

    /** The server, whose {@link RedisServer#port()} is its plain-text port: for the test's own look only. */
    public RedisServer server() {
        if (server == null) {
            throw new IllegalStateException("The test class's TLS redis-server is not running: register the extension as a static field");
        }
        return server;
    }

    /** The port that speaks TLS. */
    public int tlsPort() {
        server();
        return tlsPort;
    }

    /** The server's self-signed certificate, PEM: the one thing a client must trust. */
    public Path certificate() {
        server();
        return directory.resolve("redis.crt");
    }

    /** A self-signed RSA certificate and its key, written as PEM files as redis-server reads them. */
    private static void selfSigned(Path keyStore, Path certificate, Path key) throws IOException {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> command = List.of(keytool.toString(), "-genkeypair", "-alias", "redis", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "2", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-storetype", "PKCS12", "-keystore", keyStore.toString(), "-storepass", STORE_PASSWORD);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException(keytool + " could not make a self-signed certificate: " + output);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while " + keytool + " made a certificate", ex);
        }
        try (InputStream in = Files.newInputStream(keyStore)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, STORE_PASSWORD.toCharArray());
            Key privateKey = store.getKey("redis", STORE_PASSWORD.toCharArray());
            Files.writeString(certificate, pem("CERTIFICATE", store.getCertificate("redis").getEncoded()));
            Files.writeString(key, pem("PRIVATE KEY", privateKey.getEncoded()));
        }
        catch (GeneralSecurityException ex) {
            throw new IOException("Could not read the certificate keytool made in " + keyStore, ex);
        }
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }
}
