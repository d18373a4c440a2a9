package dev.bloomguard.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import javax.imageio.ImageIO;

/**
 * PNG charts drawn with Java2D from the run's own figures, so the pictures never drift from the table.
 *
 * <p>Size (over 300 lines): one method per kind of chart the report draws, sharing the axes,
 * legend and bar helpers below; splitting it would spread those helpers over several classes
 * for the benchmark harness alone.
 */
final class Charts {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 520;
    private static final Color[] SERIES = { new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
            new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0x7f7f7f) };

    private Charts() {
    }

    /** Horizontal bars, two per row (e.g. p50 and p99), on a log scale. */
    static void bars(Path file, String title, String unit, List<String> labels, List<double[]> values,
            List<String> seriesNames) throws IOException {
        BufferedImage image = canvas();
        Graphics2D g = graphics(image);
        title(g, title);
        int left = 260;
        int right = WIDTH - 40;
        int top = 50 + 18 * seriesNames.size();
        int rowHeight = (HEIGHT - top - 60) / Math.max(1, labels.size());
        double maxValue = values.stream().flatMapToDouble(Arrays::stream).max().orElse(1);
        double minValue = Math.max(1e-3, values.stream().flatMapToDouble(Arrays::stream).filter(v -> v > 0)
                .min().orElse(1) / 2);
        double logMin = Math.log10(minValue);
        double logMax = Math.log10(maxValue * 1.5);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int decade = (int) Math.floor(logMin); decade <= Math.ceil(logMax); decade++) {
            int x = left + (int) ((decade - logMin) / (logMax - logMin) * (right - left));
            if (x < left || x > right) {
                continue;
            }
            g.setColor(new Color(0xdddddd));
            g.drawLine(x, top, x, HEIGHT - 50);
            g.setColor(Color.DARK_GRAY);
            g.drawString(format(Math.pow(10, decade)) + " " + unit, x - 15, HEIGHT - 35);
        }
        int seriesCount = seriesNames.size();
        for (int row = 0; row < labels.size(); row++) {
            int y = top + row * rowHeight;
            g.setColor(Color.BLACK);
            g.drawString(labels.get(row), 10, y + rowHeight / 2 + 4);
            int barHeight = Math.max(4, (rowHeight - 8) / seriesCount);
            for (int s = 0; s < seriesCount; s++) {
                double value = values.get(row)[s];
                int width = value <= 0 ? 0 : (int) ((Math.log10(value) - logMin) / (logMax - logMin) * (right - left));
                g.setColor(SERIES[s % SERIES.length]);
                g.fillRect(left, y + 4 + s * barHeight, Math.max(1, width), barHeight - 2);
                g.setColor(Color.DARK_GRAY);
                g.drawString(format(value), left + Math.max(1, width) + 4, y + 4 + s * barHeight + barHeight - 4);
            }
        }
        legend(g, seriesNames, left, 40);
        write(image, file);
    }

    /** One panel of {@link #panels}: a quantity, its unit, and one value per label. */
    record Panel(String title, String unit, double[] values) {
    }

    /**
     * Panels side by side, each its own linear axis from zero, with one vertical bar per label in
     * the same colour in every panel: for quantities of different units measured on the same
     * configurations (e.g. queries per second and a latency).
     */
    static void panels(Path file, String title, List<String> labels, List<Panel> panels) throws IOException {
        BufferedImage image = canvas();
        Graphics2D g = graphics(image);
        title(g, title);
        int top = 60 + 18 * labels.size();
        int bottom = HEIGHT - 40;
        int panelWidth = (WIDTH - 40) / panels.size();
        for (int p = 0; p < panels.size(); p++) {
            Panel panel = panels.get(p);
            int left = 20 + p * panelWidth + 50;
            int right = 20 + (p + 1) * panelWidth - 20;
            double max = Arrays.stream(panel.values()).max().orElse(1);
            double scale = 4 * niceCeiling(max * 1.1 / 4);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
            g.setColor(Color.BLACK);
            g.drawString(panel.title() + " (" + panel.unit() + ")", left - 40, top - 12);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            for (int tick = 0; tick <= 4; tick++) {
                int y = bottom - (int) (tick / 4.0 * (bottom - top));
                g.setColor(new Color(0xdddddd));
                g.drawLine(left, y, right, y);
                g.setColor(Color.DARK_GRAY);
                g.drawString(format(scale * tick / 4), left - 45, y + 4);
            }
            int slot = (right - left) / labels.size();
            for (int i = 0; i < labels.size(); i++) {
                double value = panel.values()[i];
                int height = (int) (Math.max(0, value) / scale * (bottom - top));
                int x = left + i * slot + slot / 6;
                g.setColor(SERIES[i % SERIES.length]);
                g.fillRect(x, bottom - Math.max(1, height), slot * 2 / 3, Math.max(1, height));
                g.setColor(Color.BLACK);
                g.drawString(format(value), x, bottom - Math.max(1, height) - 4);
            }
        }
        legend(g, labels, 20, 40);
        write(image, file);
    }

    /**
     * One panel of {@link #groupedPanels}: a quantity, its unit, per group one value per series,
     * and the top of its axis ({@code 0}: chosen from the values; e.g. 100 for a percentage).
     */
    record GroupedPanel(String title, String unit, double[][] values, double ceiling) {
    }

    /**
     * Panels side by side, each its own linear axis from zero, with a group of bars per label (e.g.
     * a configuration), one bar per series in the same colour in every group (e.g. before and
     * after an event): for quantities of different units measured on the same configurations in
     * several conditions.
     */
    static void groupedPanels(Path file, String title, List<String> groups, List<String> seriesNames,
            List<GroupedPanel> panels) throws IOException {
        BufferedImage image = canvas();
        Graphics2D g = graphics(image);
        title(g, title);
        int top = 60 + 18 * seriesNames.size();
        int bottom = HEIGHT - 50;
        int panelWidth = (WIDTH - 40) / panels.size();
        for (int p = 0; p < panels.size(); p++) {
            GroupedPanel panel = panels.get(p);
            int left = 20 + p * panelWidth + 50;
            int right = 20 + (p + 1) * panelWidth - 20;
            double max = Arrays.stream(panel.values()).flatMapToDouble(Arrays::stream).max().orElse(1);
            double scale = panel.ceiling() > 0 ? panel.ceiling() : 4 * niceCeiling(max * 1.1 / 4);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
            g.setColor(Color.BLACK);
            g.drawString(panel.title() + " (" + panel.unit() + ")", left - 40, top - 12);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            for (int tick = 0; tick <= 4; tick++) {
                int y = bottom - (int) (tick / 4.0 * (bottom - top));
                g.setColor(new Color(0xdddddd));
                g.drawLine(left, y, right, y);
                g.setColor(Color.DARK_GRAY);
                g.drawString(format(scale * tick / 4), left - 45, y + 4);
            }
            int slot = (right - left) / groups.size();
            int barWidth = slot * 3 / 4 / seriesNames.size();
            for (int i = 0; i < groups.size(); i++) {
                int x0 = left + i * slot + slot / 8;
                for (int s = 0; s < seriesNames.size(); s++) {
                    double value = panel.values()[i][s];
                    int height = (int) (Math.min(scale, Math.max(0, value)) / scale * (bottom - top));
                    int x = x0 + s * barWidth;
                    g.setColor(SERIES[s % SERIES.length]);
                    g.fillRect(x, bottom - Math.max(1, height), barWidth - 2, Math.max(1, height));
                    g.setColor(Color.BLACK);
                    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
                    g.drawString(format(value), x, bottom - Math.max(1, height) - 4);
                }
                g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
                g.setColor(Color.BLACK);
                int width = g.getFontMetrics().stringWidth(groups.get(i));
                g.drawString(groups.get(i), left + i * slot + (slot - width) / 2, bottom + 18);
            }
        }
        legend(g, seriesNames, 20, 40);
        write(image, file);
    }

    /** The smallest 1, 2, 2.5 or 5 × 10^n at least {@code value}: a tick step a reader can add up. */
    static double niceCeiling(double value) {
        if (!(value > 0)) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] { 1, 2, 2.5, 5 }) {
            if (step * magnitude >= value) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    /** Lines of y against x on log-log axes, one per series; missing points are NaN. */
    static void lines(Path file, String title, String xUnit, String yUnit, double[] xs, Map<String, double[]> series,
            boolean diagonal) throws IOException {
        BufferedImage image = canvas();
        Graphics2D g = graphics(image);
        title(g, title);
        int left = 90;
        int right = WIDTH - 220;
        int top = 60;
        int bottom = HEIGHT - 60;
        double yMin = series.values().stream().flatMapToDouble(Arrays::stream).filter(v -> v > 0)
                .min().orElse(1);
        double yMax = series.values().stream().flatMapToDouble(Arrays::stream).filter(v -> v > 0)
                .max().orElse(10);
        if (diagonal) {
            yMin = Math.min(yMin, xs[0]);
            yMax = Math.max(yMax, xs[xs.length - 1]);
        }
        double ly0 = Math.floor(Math.log10(yMin));
        double ly1 = Math.ceil(Math.log10(yMax));
        if (ly1 == ly0) {
            ly1 = ly0 + 1;
        }
        double lx0 = Math.log10(xs[0]) - 0.1;
        double lx1 = Math.log10(xs[xs.length - 1]) + 0.1;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (double decade = ly0; decade <= ly1; decade++) {
            int y = bottom - (int) ((decade - ly0) / (ly1 - ly0) * (bottom - top));
            g.setColor(new Color(0xdddddd));
            g.drawLine(left, y, right, y);
            g.setColor(Color.DARK_GRAY);
            g.drawString(format(Math.pow(10, decade)) + " " + yUnit, 5, y + 4);
        }
        for (double x : xs) {
            int px = left + (int) ((Math.log10(x) - lx0) / (lx1 - lx0) * (right - left));
            g.setColor(new Color(0xdddddd));
            g.drawLine(px, top, px, bottom);
            g.setColor(Color.DARK_GRAY);
            g.drawString(format(x) + " " + xUnit, px - 20, bottom + 20);
        }
        if (diagonal) {
            g.setColor(Color.GRAY);
            g.setStroke(new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] { 6, 6 }, 0));
            int x0 = left + (int) ((Math.log10(xs[0]) - lx0) / (lx1 - lx0) * (right - left));
            int x1 = left + (int) ((Math.log10(xs[xs.length - 1]) - lx0) / (lx1 - lx0) * (right - left));
            int y0 = bottom - (int) ((Math.log10(xs[0]) - ly0) / (ly1 - ly0) * (bottom - top));
            int y1 = bottom - (int) ((Math.log10(xs[xs.length - 1]) - ly0) / (ly1 - ly0) * (bottom - top));
            g.drawLine(x0, y0, x1, y1);
        }
        g.setStroke(new BasicStroke(2.5f));
        int s = 0;
        for (Map.Entry<String, double[]> entry : series.entrySet()) {
            g.setColor(SERIES[s++ % SERIES.length]);
            int previousX = -1;
            int previousY = -1;
            for (int i = 0; i < xs.length; i++) {
                double value = entry.getValue()[i];
                if (!(value > 0)) {
                    previousX = -1;
                    continue;
                }
                int px = left + (int) ((Math.log10(xs[i]) - lx0) / (lx1 - lx0) * (right - left));
                int py = bottom - (int) ((Math.log10(value) - ly0) / (ly1 - ly0) * (bottom - top));
                g.fillOval(px - 4, py - 4, 8, 8);
                if (previousX >= 0) {
                    g.drawLine(previousX, previousY, px, py);
                }
                previousX = px;
                previousY = py;
            }
        }
        legend(g, List.copyOf(series.keySet()), right + 15, top);
        write(image, file);
    }

    private static void legend(Graphics2D g, List<String> names, int x, int y) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int i = 0; i < names.size(); i++) {
            g.setColor(SERIES[i % SERIES.length]);
            g.fillRect(x, y + i * 18, 12, 12);
            g.setColor(Color.BLACK);
            g.drawString(names.get(i), x + 18, y + i * 18 + 11);
        }
    }

    private static BufferedImage canvas() {
        return new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    }

    private static Graphics2D graphics(BufferedImage image) {
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        return g;
    }

    private static void title(Graphics2D g, String title) {
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, 10, 28);
    }

    private static void write(BufferedImage image, Path file) throws IOException {
        ImageIO.write(image, "png", file.toFile());
    }

    static String format(double value) {
        if (value >= 1e6) {
            return String.format("%.3gM", value / 1e6);
        }
        if (value >= 1e3) {
            return String.format("%.3gk", value / 1e3);
        }
        if (value >= 1) {
            return String.format("%.3g", value);
        }
        return String.format("%.2g", value);
    }
}
