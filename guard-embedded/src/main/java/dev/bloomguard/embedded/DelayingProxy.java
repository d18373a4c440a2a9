package dev.bloomguard.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/**
 * A loopback TCP proxy in front of a real server that holds back chosen replies: the server's
 * bytes, read by read, are numbered across all connections, and those whose number
 * {@code delayed} accepts are forwarded {@code delay} late. Requests pass at once. A client that
 * sends one request at a time gets one read per reply, so {@code n -> n % 5 == 0 || n % 5 == 2}
 * holds back two replies in five, never two in a row: a Redis that is slow for a share of calls
 * rather than down. Replies keep their order, so a reply after a held one waits with it.
 */
public final class DelayingProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final LongPredicate delayed;
    private final long delayMillis;
    private final AtomicLong replies = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    /** Until this {@link System#nanoTime}, a new connection is closed as soon as it is accepted. */
    private volatile long refusingUntil = System.nanoTime();

    private DelayingProxy(int targetPort, LongPredicate delayed, Duration delay) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetPort = targetPort;
        this.delayed = delayed;
        this.delayMillis = delay.toMillis();
        Thread acceptor = new Thread(this::accept, "delaying-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Listens on a free loopback port, forwarding to {@code targetPort} on loopback. */
    public static DelayingProxy start(int targetPort, LongPredicate delayed, Duration delay) {
        try {
            return new DelayingProxy(targetPort, delayed, delay);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("could not start the proxy in front of port " + targetPort, ex);
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Replies (reads from the server) forwarded or being held so far. */
    public long replies() {
        return replies.get();
    }

    /**
     * Closes every connection made so far, as a network cut or a server that kills its clients
     * does, and closes each new one at once for {@code refuseFor}: a client that reconnects by
     * itself stays cut off that long.
     */
    public void cut(Duration refuseFor) {
        refusingUntil = System.nanoTime() + refuseFor.toNanos();
        sockets.forEach(DelayingProxy::closeQuietly);
        sockets.clear();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                if (System.nanoTime() - refusingUntil < 0) {
                    closeQuietly(client);
                    continue;
                }
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                pump(client.getInputStream(), server.getOutputStream(), false, "requests");
                pump(server.getInputStream(), client.getOutputStream(), true, "replies");
            }
            catch (IOException ex) {
                if (!closed) {
                    throw new UncheckedIOException("the proxy on port " + port() + " failed", ex);
                }
            }
        }
    }

    private void pump(InputStream from, OutputStream to, boolean holdBack, String what) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try {
                int read;
                while ((read = from.read(buffer)) >= 0) {
                    if (holdBack && delayed.test(replies.getAndIncrement())) {
                        Thread.sleep(delayMillis);
                    }
                    to.write(buffer, 0, read);
                    to.flush();
                }
            }
            catch (IOException | InterruptedException ex) {
                // the connection closed: the other pump and the sockets close with it
            }
            finally {
                closeQuietly(to);
            }
        }, "delaying-proxy-" + what);
        pump.setDaemon(true);
        pump.start();
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        sockets.forEach(DelayingProxy::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        }
        catch (Exception ex) {
            // closing anyway
        }
    }
}
