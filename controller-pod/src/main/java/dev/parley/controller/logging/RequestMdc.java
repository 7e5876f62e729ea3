package dev.parley.controller.logging;

import org.slf4j.MDC;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MDC keys a controller puts on its log lines (docs/configuration.md, "Logs"): {@code pod} on every request,
 * {@code meeting_id} and {@code participant_id} when the path names them, {@code controller_epoch} once the owner
 * knows it. Only UUID-shaped path segments are taken, so a request cannot write arbitrary text into a log line.
 */
public final class RequestMdc {
    public static final String POD = "pod";
    public static final String MEETING_ID = "meeting_id";
    public static final String PARTICIPANT_ID = "participant_id";
    public static final String CONTROLLER_EPOCH = "controller_epoch";
    /** Every key a request scope owns: set on entry, put back as they were on exit. */
    static final List<String> KEYS = List.of(POD, MEETING_ID, PARTICIPANT_ID, CONTROLLER_EPOCH);

    private static final String UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
    private static final Pattern UUID_ONLY = Pattern.compile(UUID);
    private static final Pattern MEETING = Pattern.compile("/meetings/(" + UUID + ")(?:/participants/(" + UUID + "))?(?:/|$)");

    private RequestMdc() {
    }

    /** The MDC for a request to {@code path} served by {@code pod}. */
    public static Map<String, String> forPath(String path, String pod) {
        Map<String, String> mdc = new LinkedHashMap<>();
        mdc.put(POD, pod);
        Matcher m = MEETING.matcher(path == null ? "" : path);
        if (m.find()) {
            mdc.put(MEETING_ID, m.group(1).toLowerCase(java.util.Locale.ROOT));
            if (m.group(2) != null) {
                mdc.put(PARTICIPANT_ID, m.group(2).toLowerCase(java.util.Locale.ROOT));
            }
        }
        return mdc;
    }

    /** The propagated-context element that puts {@link #forPath} on whichever thread runs the request. */
    static RequestMdcContext contextFor(String path, String pod) {
        Map<String, String> mdc = forPath(path, pod);
        return new RequestMdcContext(mdc.get(POD), mdc.get(MEETING_ID), mdc.get(PARTICIPANT_ID));
    }

    /** Called where the owner learns its epoch; the request's propagated MDC scope removes it afterwards. */
    public static void epoch(long epoch) {
        MDC.put(CONTROLLER_EPOCH, Long.toString(epoch));
    }

    /** Called where a join learns the new participant's id. */
    public static void participant(String participantId) {
        if (participantId != null && UUID_ONLY.matcher(participantId).matches()) {
            MDC.put(PARTICIPANT_ID, participantId);
        }
    }
}
