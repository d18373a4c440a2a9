package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.spring.autoconfigure.BloomGuardProperties;

/**
 * The sizing table of {@code docs/operations.md} is {@link FilterGeometry}'s: each row's bits,
 * memory, hash count and shards are what the starter computes for that expected-insertions and
 * fpp under the default {@code max-shard-size}, as its startup validation does.
 */
class SizingTableTests {

    private static final String START = "<!-- sizing-table: checked by SizingTableTests -->";
    private static final String END = "<!-- end sizing-table -->";

    @Test
    void everyRowOfTheSizingTableIsTheGeometryTheStarterComputes() throws IOException {
        String guide = Files.readString(ReadmeExamplesTests.projectRoot().resolve("docs/operations.md"));
        assertThat(guide).contains(START, END);
        List<String> rows = guide.substring(guide.indexOf(START), guide.indexOf(END)).lines()
                .filter(line -> line.matches("\\| [0-9].*")).toList();
        assertThat(rows).as("rows of the sizing table").hasSizeGreaterThanOrEqualTo(12);

        long maxShardBits = Math.min(FilterGeometry.MAX_BITS, new BloomGuardProperties().getMaxShardSize().toBytes() * 8);
        for (String row : rows) {
            String[] cells = row.substring(1, row.length() - 1).split("\\|");
            long insertions = Long.parseLong(cells[0].strip().replace(",", ""));
            double fpp = Double.parseDouble(cells[1].strip());
            FilterGeometry geometry = FilterGeometry.sharded(insertions, fpp, maxShardBits);
            String expected = String.format(Locale.ROOT, "| %,d | %s | %,d | %,.2f | %d | %d |", insertions,
                    cells[1].strip(), geometry.totalBits(), geometry.totalByteSize() / 1024.0 / 1024.0,
                    geometry.hashes(), geometry.shards());
            assertThat(row).as("the row for %s keys at fpp %s", insertions, fpp).isEqualTo(expected);
        }
    }
}
