package dev.parley.operator.keys;

/**
 * etcd key layout (docs/architecture.md), the part the operator and the kubectl plugin read. Pod keys take the
 * pool's path segment ({@code sfu} or {@code turn}).
 */
public final class RegistryKeys {
    public static final String ROOT = "/parley/v1";

    private RegistryKeys() {
    }

    public static String podPrefix(String segment, String region) {
        return ROOT + "/regions/" + region + "/" + segment + "/";
    }

    public static String pod(String segment, String region, String pod) {
        return podPrefix(segment, region) + pod;
    }

    public static String recordingRunner(String jobId) {
        return ROOT + "/recordings/" + jobId + "/runner";
    }

    /** Parent of every recording job's keys. */
    public static String recordingsPrefix() {
        return ROOT + "/recordings/";
    }

    public static String recordingRequest(String jobId) {
        return recordingsPrefix() + jobId + "/request";
    }

    public static String meetingOwner(String meetingId) {
        return ROOT + "/meetings/" + meetingId + "/owner";
    }
}
