package dev.bloomguard.testsupport;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Stalls a process as a busy host or a container's CPU quota does, only more so: a child shell
 * sends it {@code SIGSTOP}, waits, and sends {@code SIGCONT}, once per pause, with a gap of
 * running time between pauses. Every thread of the process stops, its timers and its I/O threads
 * included, while servers in other processes (Redis, PostgreSQL) keep answering. Used on the test's
 * own JVM ({@link #ofThisProcess()}): the shell is another process, so it goes on while the JVM
 * is stopped, and its exit trap continues the JVM whatever happens to the shell.
 */
public final class ProcessStops {

    private final long pid;

    private ProcessStops(long pid) {
        this.pid = pid;
    }

    public static ProcessStops ofThisProcess() {
        return new ProcessStops(ProcessHandle.current().pid());
    }

    public static ProcessStops of(long pid) {
        return new ProcessStops(pid);
    }

    /**
     * Stops the process once per entry of {@code pauses}, for that long, with {@code gap} of
     * running time before each; returns when the last pause is over.
     *
     * @throws IllegalStateException when the shell could not run or failed (no {@code kill}, a
     *     process that could not be signalled): a test that meant to stall the process must not
     *     pass without having done so
     */
    public void pause(List<Duration> pauses, Duration gap) {
        String seconds = pauses.stream().map(ProcessStops::seconds).collect(Collectors.joining(" "));
        String script = "trap 'kill -CONT " + pid + "' EXIT; "
                + "for pause in " + seconds + "; do sleep " + seconds(gap) + "; "
                + "kill -STOP " + pid + " || exit 3; sleep $pause; kill -CONT " + pid + " || exit 4; done";
        Process shell;
        try {
            shell = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        }
        catch (IOException ex) {
            throw new IllegalStateException("could not start sh to stop process " + pid, ex);
        }
        try {
            long budget = pauses.stream().mapToLong(Duration::toMillis).sum() + gap.toMillis() * pauses.size()
                    + 30_000;
            if (!shell.waitFor(budget, TimeUnit.MILLISECONDS)) {
                shell.destroy();
                throw new IllegalStateException("the shell stopping process " + pid + " did not finish");
            }
            if (shell.exitValue() != 0) {
                String output = new String(shell.getInputStream().readAllBytes());
                throw new IllegalStateException("stopping process " + pid + " failed (exit " + shell.exitValue()
                        + "): " + output);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            shell.destroy();
            throw new IllegalStateException("interrupted while process " + pid + " was being stopped", ex);
        }
        catch (IOException ex) {
            throw new IllegalStateException("could not read the output of the shell stopping " + pid, ex);
        }
    }

    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.3f", duration.toNanos() / 1e9);
    }
}
