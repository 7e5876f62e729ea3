package dev.parley.operator.registry;

import dev.parley.operator.model.PoolKind;

/** etcd key layout (docs/architecture.md), the part the operator and plugin read. */
public final class RegistryKeys {
    public static final String ROOT = "/parley/v1";

    private RegistryKeys() {
    }

    public static String podPrefix(PoolKind kind, String region) {
        return ROOT + "/regions/" + region + "/" + kind.segment() + "/";
    }

    public static String pod(PoolKind kind, String region, String pod) {
        return podPrefix(kind, region) + pod;
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
