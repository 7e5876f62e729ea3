package dev.parley.testsupport.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The "Exported series" table of {@code docs/observability.md}: the one list of metric names that the pods' scrape
 * tests, the dashboard test and the rules test all check against, so a rename can't leave a reader behind.
 */
public final class ExportedSeries {
    /** One row: the series name (a histogram's or summary's base name), the pods that export it, its type. */
    public record Series(String name, Set<String> pods, String type) {
    }

    private static final Pattern ROW = Pattern.compile("^\\| `([a-z_:][a-z0-9_:]*)` \\| ([a-z, -]+) \\| ([a-z]+) \\|");

    private ExportedSeries() {
    }

    /** Every row of the table. */
    public static List<Series> all() {
        List<Series> rows = new ArrayList<>();
        boolean inSection = false;
        for (String line : doc().split("\n")) {
            if (line.startsWith("## ")) {
                inSection = line.equals("## Exported series");
                continue;
            }
            Matcher m = ROW.matcher(line);
            if (inSection && m.find()) {
                Set<String> pods = new TreeSet<>();
                for (String p : m.group(2).split(",")) {
                    pods.add(p.trim());
                }
                rows.add(new Series(m.group(1), pods, m.group(3)));
            }
        }
        if (rows.isEmpty()) {
            throw new IllegalStateException("no rows under '## Exported series' in docs/observability.md");
        }
        return rows;
    }

    /** The rows of one pod ({@code controller}, {@code sfu}, {@code turn}, {@code recorder}, {@code operator}). */
    public static List<Series> ofPod(String pod) {
        return all().stream().filter(s -> s.pods().contains(pod)).toList();
    }

    /** Every listed name. */
    public static Set<String> names() {
        Set<String> names = new TreeSet<>();
        all().forEach(s -> names.add(s.name()));
        return names;
    }

    /**
     * Whether a name a query uses is listed: itself, or a listed histogram's/summary's {@code _bucket}, {@code _sum},
     * {@code _count} (and Micrometer's {@code _max}) series.
     */
    public static boolean isListed(String name) {
        for (Series s : all()) {
            if (s.name().equals(name)) {
                return true;
            }
            boolean distribution = s.type().equals("histogram") || s.type().equals("summary");
            if (distribution && Set.of(s.name() + "_bucket", s.name() + "_sum", s.name() + "_count", s.name() + "_max")
                    .contains(name)) {
                return true;
            }
        }
        return false;
    }

    /** The listed series of {@code pod} that a scraped {@code /metrics} page has neither a TYPE line nor a sample of. */
    public static List<String> missingFrom(String scrape, String pod) {
        List<String> missing = new ArrayList<>();
        for (Series s : ofPod(pod)) {
            Pattern present = Pattern.compile("(?m)^(# TYPE " + Pattern.quote(s.name()) + " |" + Pattern.quote(s.name())
                    + "(_bucket|_count|_sum)?[{ ])");
            if (!present.matcher(scrape).find()) {
                missing.add(s.name());
            }
        }
        return missing;
    }

    /** docs/observability.md, found from the module's directory (tests run there) or the repository root. */
    public static String doc() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path p = dir.resolve("docs/observability.md");
            if (Files.isRegularFile(p)) {
                try {
                    return Files.readString(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("docs/observability.md not found above " + Path.of("").toAbsolutePath());
    }
}
