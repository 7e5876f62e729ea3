package dev.parley.kubectl.output;

import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;

/** {@code -o} values: kubectl's table (default), wide (more columns), json and yaml (the full document). */
public enum OutputFormat {
    TABLE, WIDE, JSON, YAML;

    public boolean structured() {
        return this == JSON || this == YAML;
    }

    /** picocli converter: an unknown value is a usage error (exit 2) naming the accepted ones. */
    public static final class Converter implements CommandLine.ITypeConverter<OutputFormat> {
        @Override
        public OutputFormat convert(String value) {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("-o must be wide, json or yaml (got '" + value + "')");
            }
        }
    }

    /** Completion candidates and the ${COMPLETION-CANDIDATES} of the help text. */
    public static final class Candidates implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of("wide", "json", "yaml").iterator();
        }
    }
}
