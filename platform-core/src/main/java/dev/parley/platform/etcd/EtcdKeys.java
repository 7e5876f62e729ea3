package dev.parley.platform.etcd;

import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The etcd key layout shared by every pod (prefix {@code /parley/v1}). One place so that the
 * controller, SFU, TURN, recorder and operator never disagree about a path.
 */
public final class EtcdKeys {
    public static final String ROOT = "/parley/v1";

    private EtcdKeys() {
    }

    /** Owner key of a meeting; its create revision is the meeting's {@code controller_epoch}. */
    public static String meetingOwner(String meetingId) {
        return ROOT + "/meetings/" + segment(meetingId) + "/owner";
    }

    public static String sfuPrefix(String region) {
        return ROOT + "/regions/" + segment(region) + "/sfu/";
    }

    /** Every region's registry (SFUs and TURNs): filter with {@link #isSfuKey}. */
    public static String regionsPrefix() {
        return ROOT + "/regions/";
    }

    /** True for {@code /parley/v1/regions/{region}/sfu/{pod}} (not a TURN entry). */
    public static boolean isSfuKey(String key) {
        if (!key.startsWith(regionsPrefix())) return false;
        String[] rest = key.substring(regionsPrefix().length()).split("/", -1);
        return rest.length == 3 && "sfu".equals(rest[1]) && !rest[0].isEmpty() && !rest[2].isEmpty();
    }

    public static String sfu(String region, String pod) {
        return sfuPrefix(region) + segment(pod);
    }

    public static String turnPrefix(String region) {
        return ROOT + "/regions/" + segment(region) + "/turn/";
    }

    public static String turn(String region, String pod) {
        return turnPrefix(region) + segment(pod);
    }

    /** Controller pods announce their internal address here (used to forward requests to an owner). */
    public static String controllerPrefix() {
        return ROOT + "/controllers/";
    }

    public static String controller(String pod) {
        return controllerPrefix() + segment(pod);
    }

    public static String recordingRunner(String jobId) {
        return ROOT + "/recordings/" + segment(jobId) + "/runner";
    }

    /** Parent of every recording job's keys ({@code runner}, {@code request}). */
    public static String recordingsPrefix() {
        return ROOT + "/recordings/";
    }

    /**
     * The controller's request for a recorder (docs/recording.md): written while the job is not final, read by
     * the operator, which creates the job's RecordingJob resource from it. No lease, no secrets.
     */
    public static String recordingRequest(String jobId) {
        return recordingsPrefix() + segment(jobId) + "/request";
    }

    public static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /** The last path segment of a key (the pod name of a registry entry). */
    public static String lastSegment(String key) {
        int i = key.lastIndexOf('/');
        return i < 0 ? key : key.substring(i + 1);
    }

    private static String segment(String s) {
        Objects.requireNonNull(s, "key segment");
        if (s.isEmpty() || s.indexOf('/') >= 0 || s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("invalid key segment: " + s);
        }
        return s;
    }
}
