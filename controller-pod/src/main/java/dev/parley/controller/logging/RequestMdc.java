package dev.parley.controller.logging;

import org.slf4j.MDC;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
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
    private static final String MEETINGS = "/meetings/";
    private static final String PARTICIPANTS = "/participants/";
    private static final int UUID_LENGTH = 36;

    private RequestMdc() {
    }

    /** The MDC for a request to {@code path} served by {@code pod}. */
    public static Map<String, String> forPath(String path, String pod) {
        RequestMdcContext ids = contextFor(path, pod);
        Map<String, String> mdc = new LinkedHashMap<>();
        mdc.put(POD, pod);
        if (ids.meetingId() != null) {
            mdc.put(MEETING_ID, ids.meetingId());
        }
        if (ids.participantId() != null) {
            mdc.put(PARTICIPANT_ID, ids.participantId());
        }
        return mdc;
    }

    /**
     * The propagated-context element that puts the request's keys on whichever thread runs it: the first
     * {@code /meetings/<uuid>} segment, and {@code /participants/<uuid>} right after it. Parsed by hand because it runs
     * on every request (a regex here was ~1 % of the CPU of a join).
     */
    static RequestMdcContext contextFor(String path, String pod) {
        String p = path == null ? "" : path;
        for (int i = p.indexOf(MEETINGS); i >= 0; i = p.indexOf(MEETINGS, i + 1)) {
            int m = i + MEETINGS.length();
            if (uuidSegmentAt(p, m)) {
                int q = m + UUID_LENGTH + PARTICIPANTS.length();
                String participant = p.startsWith(PARTICIPANTS, m + UUID_LENGTH) && uuidSegmentAt(p, q)
                        ? lower(p, q) : null;
                return new RequestMdcContext(pod, lower(p, m), participant);
            }
        }
        return new RequestMdcContext(pod, null, null);
    }

    /** A UUID (8-4-4-4-12 hex digits) at {@code at}, ending the path or followed by {@code /}. */
    private static boolean uuidSegmentAt(String p, int at) {
        int end = at + UUID_LENGTH;
        if (end > p.length() || (end < p.length() && p.charAt(end) != '/')) {
            return false;
        }
        for (int k = 0; k < UUID_LENGTH; k++) {
            char c = p.charAt(at + k);
            boolean dash = k == 8 || k == 13 || k == 18 || k == 23;
            if (dash ? c != '-' : Character.digit(c, 16) < 0 || c > 'f') {
                return false;
            }
        }
        return true;
    }

    private static String lower(String p, int at) {
        return p.substring(at, at + UUID_LENGTH).toLowerCase(Locale.ROOT);
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
