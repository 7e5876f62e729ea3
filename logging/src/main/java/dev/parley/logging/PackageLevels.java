package dev.parley.logging;

import ch.qos.logback.classic.Level;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code PARLEY_LOG_LEVELS}: comma-separated {@code logger=level} pairs, e.g.
 * {@code dev.parley.sfu.routing=debug,io.netty=warn,root=info}. Bad entries are skipped and reported, never fatal:
 * a typo in a level must not keep a pod from starting.
 */
public record PackageLevels(Map<String, Level> levels, List<String> rejected) {
    private static final Pattern LOGGER_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    private static final List<String> LEVELS = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");

    public static PackageLevels parse(String spec) {
        Map<String, Level> levels = new LinkedHashMap<>();
        List<String> rejected = new ArrayList<>();
        if (spec == null) {
            return new PackageLevels(levels, rejected);
        }
        for (String entry : spec.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            String name = eq < 0 ? "" : e.substring(0, eq).trim();
            String level = eq < 0 ? "" : e.substring(eq + 1).trim().toUpperCase(Locale.ROOT);
            if (!LOGGER_NAME.matcher(name).matches() || !LEVELS.contains(level)) {
                rejected.add(e);
                continue;
            }
            levels.put(name.equalsIgnoreCase("root") ? org.slf4j.Logger.ROOT_LOGGER_NAME : name, Level.toLevel(level));
        }
        return new PackageLevels(Map.copyOf(levels), List.copyOf(rejected));
    }
}
