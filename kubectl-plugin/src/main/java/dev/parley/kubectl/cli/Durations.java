package dev.parley.kubectl.cli;

import java.time.Duration;
import picocli.CommandLine;

/** Durations as kubectl users write them: 90, 90s, 15m, 1h, 200ms. A bad one is a usage error (exit 2). */
public final class Durations implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String s) {
        String t = s == null ? "" : s.trim();
        try {
            if (t.endsWith("ms")) {
                return positive(Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2))), s);
            }
            char unit = t.charAt(t.length() - 1);
            if (Character.isDigit(unit)) {
                return positive(Duration.ofSeconds(Long.parseLong(t)), s);
            }
            long n = Long.parseLong(t.substring(0, t.length() - 1));
            return positive(switch (unit) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> throw bad(s);
            }, s);
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw bad(s);
        }
    }

    private static Duration positive(Duration d, String s) {
        if (d.isNegative() || d.isZero()) {
            throw bad(s);
        }
        return d;
    }

    private static CommandLine.TypeConversionException bad(String s) {
        return new CommandLine.TypeConversionException("'" + s + "' is not a duration (use e.g. 90s, 15m, 1h, 200ms)");
    }
}
