package dev.bloomguard.testsupport;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Names for what a test creates in a server shared with other tests (a filter, a key prefix):
 * the test method's name, so a leftover key says which test made it, and a number no other test of
 * the JVM gets, so a repeated or parameterized test never finds an earlier run's keys.
 */
public final class TestNames {

    private static final AtomicInteger NUMBER = new AtomicInteger();

    private TestNames() {
    }

    /** {@code <test method>-<number>}, unique within the JVM. */
    public static String unique(TestInfo test) {
        return unique(test.getTestMethod().orElseThrow().getName());
    }

    /** {@link #unique(TestInfo)} for an extension, which sees the test as its context. */
    public static String unique(ExtensionContext test) {
        return unique(test.getRequiredTestMethod().getName());
    }

    private static String unique(String testMethod) {
        return testMethod + "-" + NUMBER.incrementAndGet();
    }
}
