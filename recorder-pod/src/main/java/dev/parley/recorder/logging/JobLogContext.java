package dev.parley.recorder.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.Marker;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A recorder pod runs for one meeting's one recording job generation, so every line it writes carries
 * {@code meeting_id}, {@code recording_job_id} and {@code generation} (docs/configuration.md, "Logs"). Rather than
 * wrap each thread the recorder, ffmpeg readers, the S3 client and etcd start, a turbo filter (it runs on the
 * logging thread before the event is made) puts the three into that thread's MDC the first time it logs. After
 * that the cost of a log call is one MDC lookup.
 */
public final class JobLogContext extends TurboFilter {
    public static final String MEETING_ID = "meeting_id";
    public static final String RECORDING_JOB_ID = "recording_job_id";
    public static final String GENERATION = "generation";
    /** The job id's own rule (RecorderConfig); a meeting id is a UUID; anything else is left out of the lines. */
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_-]{1,100}");

    private final Map<String, String> fields;
    private final String marker;

    JobLogContext(Map<String, String> fields) {
        this.fields = Map.copyOf(fields);
        this.marker = fields.containsKey(RECORDING_JOB_ID) ? RECORDING_JOB_ID : fields.keySet().iterator().next();
    }

    /** The fields this pod's environment names, in line order; values that do not fit their rule are left out. */
    public static Map<String, String> fieldsFrom(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        take(env, "PARLEY_MEETING_ID", MEETING_ID, out);
        take(env, "PARLEY_RECORDING_JOB_ID", RECORDING_JOB_ID, out);
        take(env, "PARLEY_RECORDING_GENERATION", GENERATION, out);
        return out;
    }

    private static void take(Map<String, String> env, String variable, String field, Map<String, String> out) {
        String v = env.get(variable);
        if (v != null && SAFE.matcher(v.trim()).matches()) {
            out.put(field, v.trim());
        }
    }

    /** Adds the filter to logback when it is the logging backend and the environment names at least one field. */
    public static void install(Map<String, String> env) {
        Map<String, String> fields = fieldsFrom(env);
        if (fields.isEmpty() || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        JobLogContext filter = new JobLogContext(fields);
        filter.setContext(context);
        filter.setName("recording-job-mdc");
        filter.start();
        context.addTurboFilter(filter);
    }

    @Override
    public FilterReply decide(Marker m, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (MDC.get(marker) == null) {
            fields.forEach(MDC::put);
        }
        return FilterReply.NEUTRAL; // never changes what is logged, only what a line carries
    }
}
