package dev.bloomguard.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A headless Debian {@code chromium} driven through Debian's {@code chromedriver}, both from the
 * system (apt packages {@code chromium} and {@code chromium-driver}; {@code .ci/run} installs
 * them), or, where they are not installed, the Chrome for Testing Selenium Manager downloads.
 *
 * <p>A browser that cannot be had is a failure, not a skipped test: the dashboard would otherwise
 * go untested without anyone noticing.
 */
final class Chromium implements AutoCloseable {

    private static final Path BROWSER = Path.of(System.getProperty("demo.chromium", "/usr/bin/chromium"));
    private static final Path DRIVER = Path.of(System.getProperty("demo.chromedriver", "/usr/bin/chromedriver"));

    /**
     * Selenium looks for DevTools classes matching the browser's version and warns twice when it
     * has none; the raw CDP commands used here ({@code executeCdpCommand}) need none. Held here, as
     * java.util.logging keeps loggers only weakly.
     */
    private static final List<Logger> QUIET = List.of(Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder"),
            Logger.getLogger("org.openqa.selenium.chromium.ChromiumDriver"));

    private final ChromeDriver driver;

    private Chromium(ChromeDriver driver) {
        this.driver = driver;
    }

    /**
     * Starts the browser with a viewport of exactly {@code width} × {@code height} CSS pixels:
     * Debian's chromium and chromedriver when installed (as {@code .ci/run} does), otherwise the
     * Chrome for Testing that Selenium Manager downloads, so that the README's test command also
     * runs on a machine with only a JDK and a network.
     */
    static Chromium start(int width, int height) {
        QUIET.forEach(logger -> logger.setLevel(Level.SEVERE));
        ChromeOptions options = new ChromeOptions();
        // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--hide-scrollbars", "--window-size=" + width + "," + height);
        ChromeDriver driver;
        if (Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER)) {
            options.setBinary(BROWSER.toFile());
            driver = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).build(),
                    options);
        }
        else {
            try {
                driver = new ChromeDriver(options);
            }
            catch (RuntimeException ex) {
                throw new IllegalStateException(BROWSER + " or " + DRIVER + " is missing and Selenium Manager could not"
                        + " download a browser: the dashboard's browser test needs Debian's chromium and chromium-driver"
                        + " (apt-get install -y chromium chromium-driver; .ci/run does it)", ex);
            }
        }
        Chromium chromium = new Chromium(driver);
        chromium.viewport(width, height, false);
        return chromium;
    }

    ChromeDriver driver() {
        return driver;
    }

    /** Emulates a screen of this size, a phone's when {@code mobile}; the page keeps its state. */
    void viewport(int width, int height, boolean mobile) {
        driver.executeCdpCommand("Emulation.setDeviceMetricsOverride",
                Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", mobile));
    }

    /** What the window shows now. */
    void screenshot(Path file) throws IOException {
        write(file, driver.getScreenshotAs(OutputType.BYTES));
    }

    /** The whole page, scrolled or not, at the viewport's width. */
    void fullPageScreenshot(Path file) throws IOException {
        Number width = (Number) driver.executeScript("return document.documentElement.scrollWidth");
        Number height = (Number) driver.executeScript("return document.documentElement.scrollHeight");
        Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot", Map.of("format", "png",
                "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
        write(file, Base64.getDecoder().decode((String) shot.get("data")));
    }

    private static void write(Path file, byte[] png) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, png);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
