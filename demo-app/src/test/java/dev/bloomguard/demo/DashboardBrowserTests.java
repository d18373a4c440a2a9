package dev.bloomguard.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The dashboard in a real browser: Debian's Chromium, headless, against the demo on a random
 * port with a real redis-server and H2 seeded with 20,000 users. What a visitor does (start an
 * attack with the guard on, then off; create a user; rebuild the filter; send a bad rate) and
 * what the page must then show, read from the page itself.
 *
 * <p>The rebuild is allowed here ({@code access=unrestricted}); the demo's own read-only setting
 * is checked in {@link DemoApplicationTests}. The attack test saves the README's screenshots, at
 * 1280×800 and at a phone's 390 px, into {@code demo.screenshots} (the Boot 3.5 build points it at
 * {@code docs/}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "demo.users=20000", "bloom-guard.redis-timeout=2s",
                "management.endpoint.bloomguard.access=unrestricted" })
class DashboardBrowserTests {

    private static final int WIDTH = 1280;
    private static final int HEIGHT = 800;
    private static final int PHONE_WIDTH = 390;
    private static final int PHONE_HEIGHT = 844;

    private static final int RATE = 400;
    private static final int SECONDS = 3;

    private static final Path SCREENSHOTS = Path.of(System.getProperty("demo.screenshots", "target/screenshots"));

    private static Chromium chromium;

    @Value("${local.server.port}")
    private int port;

    @BeforeAll
    static void startBrowser() {
        chromium = Chromium.start(WIDTH, HEIGHT);
    }

    @AfterAll
    static void closeBrowser() {
        if (chromium != null) {
            chromium.close();
        }
    }

    @Test
    void anAttackIsBlockedWithTheGuardAndReachesTheDatabaseWithout() throws IOException {
        open();
        long blockedBefore = value("count-blocked");
        long queriesBefore = value("count-db");
        String blockedLineBefore = browser().findElement(By.id("line-blocked")).getDomAttribute("points");

        attack(true);

        long lookups = value("compare-on-lookups");
        long blocked = value("compare-on-rejected");
        long queries = value("compare-on-db");
        assertThat(lookups).as("lookups of the burst with the guard: %s", text("attack-status")).isGreaterThanOrEqualTo(RATE * SECONDS / 2);
        assertThat(blocked).as("blocked lookups dominate").isGreaterThanOrEqualTo(lookups * 95 / 100);
        assertThat(queries).as("database queries with the guard on").isLessThanOrEqualTo(lookups / 100);
        awaitAtLeast("count-blocked", blockedBefore + blocked);
        awaitAtLeast("count-avoided", blockedBefore + blocked);
        assertThat(value("count-db") - queriesBefore).as("queries counted while the guard was on")
                .isLessThanOrEqualTo(lookups / 100);
        await("the chart's blocked line to show the burst",
                page -> peak("line-blocked") >= lookups / SECONDS / 2.0);
        assertThat(browser().findElement(By.id("line-blocked")).getDomAttribute("points"))
                .isNotEqualTo(blockedLineBefore);
        long blockedAfterGuardedBurst = value("count-blocked");
        long queriesAfterGuardedBurst = value("count-db");

        attack(false);

        long unguardedLookups = value("compare-off-lookups");
        long unguardedQueries = value("compare-off-db");
        assertThat(unguardedLookups).as("lookups of the burst without the guard: %s", text("attack-status"))
                .isGreaterThanOrEqualTo(RATE * SECONDS / 2);
        assertThat(unguardedQueries).as("every lookup without the guard is a database query")
                .isGreaterThanOrEqualTo(unguardedLookups);
        assertThat(unguardedQueries).as("with the guard off against on").isGreaterThan(50 * Math.max(queries, 1));
        awaitAtLeast("count-db", queriesAfterGuardedBurst + unguardedLookups);
        await("the chart's database line to show the burst",
                page -> peak("line-db") >= unguardedLookups / SECONDS / 2.0);
        assertThat(value("count-blocked")).as("the filter is not asked with the guard off")
                .isEqualTo(blockedAfterGuardedBurst);
        assertThat(value("compare-on-db")).as("the guarded burst still shows beside it").isEqualTo(queries);

        for (String id : new String[] { "chart", "attack-start", "compare-off-db", "count-blocked" }) {
            assertThat(bottom(id)).as("%s on the first screen at %dx%d", id, WIDTH, HEIGHT).isLessThanOrEqualTo(HEIGHT);
        }
        chromium.screenshot(SCREENSHOTS.resolve("demo-dashboard.png"));

        chromium.viewport(PHONE_WIDTH, PHONE_HEIGHT, true);
        try {
            await("the phone's screen", page -> number("return screen.width") == PHONE_WIDTH, () -> "");
            // A phone widens its layout viewport to whatever sticks out, so both widths are checked.
            assertThat(number("return window.innerWidth")).as("layout width on a phone: %s", overflow())
                    .isEqualTo(PHONE_WIDTH);
            assertThat(number("return document.documentElement.scrollWidth")).as("no sideways scrolling: %s", overflow())
                    .isLessThanOrEqualTo(PHONE_WIDTH);
            assertThat(right("attack-start")).isLessThanOrEqualTo(PHONE_WIDTH);
            assertThat(right("chart")).isLessThanOrEqualTo(PHONE_WIDTH);
            chromium.fullPageScreenshot(SCREENSHOTS.resolve("demo-dashboard-phone.png"));
        }
        finally {
            chromium.viewport(WIDTH, HEIGHT, false);
        }
    }

    @Test
    void createsAUserThatIsFoundAtOnce() {
        open();
        browser().findElement(By.id("user-name")).clear();
        browser().findElement(By.id("user-name")).sendKeys("Grace Hopper");
        browser().findElement(By.id("user-email")).clear();
        browser().findElement(By.id("user-email")).sendKeys("grace@example.com");

        browser().findElement(By.id("user-create")).click();

        await("the lookup of the new user", page -> "200".equals(
                page.findElement(By.id("user-result")).getDomAttribute("data-status")));
        assertThat(text("user-result")).contains("found at once");
    }

    @Test
    void rebuildsTheFilterFromThePage() {
        open();
        await("the last load", page -> !attribute("filter-last-load", "data-finished-at").isEmpty());
        String loadedAt = attribute("filter-last-load", "data-finished-at");
        await("the rebuild button", page -> page.findElement(By.id("rebuild")).isEnabled());

        browser().findElement(By.id("rebuild")).click();

        await("the rebuild to start", page -> text("rebuild-note").equals("Rebuild started."));
        await("a new last load", page -> !attribute("filter-last-load", "data-finished-at").equals(loadedAt)
                && !attribute("filter-last-load", "data-finished-at").isEmpty());
        assertThat(text("filter-state")).isEqualTo("READY");
    }

    @Test
    void namesTheFieldOfABadRate() {
        open();
        type("attack-rate", "99999");

        browser().findElement(By.id("attack-start")).click();

        await("the error", page -> page.findElement(By.id("attack-error")).isDisplayed());
        assertThat(text("attack-error")).isEqualTo("rate (99999) must be from 1 to 2000");
    }

    private void open() {
        browser().get("http://localhost:" + port + "/");
        await("the filter to be READY", page -> text("filter-state").equals("READY"));
        await("the first counters and chart", page -> !page.findElements(By.id("line-blocked")).isEmpty()
                && !text("attack-caps").equals("…"));
    }

    /** Starts a burst of absent ids from the form and waits until the page shows it finished. */
    private void attack(boolean guarded) {
        type("attack-rate", String.valueOf(RATE));
        type("attack-seconds", String.valueOf(SECONDS));
        new Select(browser().findElement(By.id("attack-mix"))).selectByValue("absent");
        WebElement guard = browser().findElement(By.id("attack-guard"));
        if (guard.isSelected() != guarded) {
            guard.click();
        }
        String side = guarded ? "on" : "off";
        String startedBefore = attackStatus();

        browser().findElement(By.id("attack-start")).click();

        // One read of the status line: the page rewrites its state and text together.
        await("the burst with the guard " + side + " to finish", Duration.ofSeconds(SECONDS + 20), page -> {
            String status = attackStatus();
            return !status.equals(startedBefore) && status.startsWith("finished|")
                    && status.contains("guard " + side);
        }, DashboardBrowserTests::attackStatus);
    }

    /** The window's width and the elements that stick out of it, widest first. */
    private static String overflow() {
        return (String) browser().executeScript("""
                const width = window.innerWidth;
                const wide = Array.from(document.querySelectorAll('body *'))
                    .map(element => [element, element.getBoundingClientRect().right])
                    .filter(([element, right]) => right > width + 0.5)
                    .sort((a, b) => b[1] - a[1]).slice(0, 5)
                    .map(([element, right]) => element.tagName + '#' + element.id + '.' + element.className + ' ' + right);
                return 'window ' + width + ' px, page ' + document.documentElement.scrollWidth + ' px; wider: ' + wide;
                """);
    }

    /** The status line's state and text, as {@code state|text}. */
    private static String attackStatus() {
        return (String) browser().executeScript(
                "const line = document.getElementById('attack-status'); return line.dataset.state + '|' + line.textContent");
    }

    private void type(String id, String text) {
        WebElement input = browser().findElement(By.id(id));
        input.clear();
        input.sendKeys(text);
    }

    private void awaitAtLeast(String id, long expected) {
        await(id + " >= " + expected, page -> value(id) >= expected);
    }

    private void await(String what, Function<WebDriver, Boolean> condition) {
        await(what, Duration.ofSeconds(15), condition);
    }

    private void await(String what, Duration timeout, Function<WebDriver, Boolean> condition) {
        await(what, timeout, condition, () -> "");
    }

    private void await(String what, Function<WebDriver, Boolean> condition, Supplier<String> state) {
        await(what, Duration.ofSeconds(15), condition, state);
    }

    /** Waits for the page, failing with what it waited for and {@code state}, what the page shows then. */
    private void await(String what, Duration timeout, Function<WebDriver, Boolean> condition, Supplier<String> state) {
        new WebDriverWait(browser(), timeout, Duration.ofMillis(100))
                .withMessage(() -> "waiting for " + what + "; " + state.get())
                .until(condition);
    }

    private static long value(String id) {
        return Long.parseLong(attribute(id, "data-value"));
    }

    private static double peak(String line) {
        return Double.parseDouble(attribute(line, "data-peak"));
    }

    private static String attribute(String id, String name) {
        String value = browser().findElement(By.id(id)).getDomAttribute(name);
        return value == null ? "" : value;
    }

    private static String text(String id) {
        return browser().findElement(By.id(id)).getText();
    }

    private static double bottom(String id) {
        return number("return document.getElementById('" + id + "').getBoundingClientRect().bottom");
    }

    private static double right(String id) {
        return number("return document.getElementById('" + id + "').getBoundingClientRect().right");
    }

    private static double number(String script) {
        return ((Number) browser().executeScript(script)).doubleValue();
    }

    private static ChromeDriver browser() {
        return chromium.driver();
    }
}
