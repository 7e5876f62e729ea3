package dev.parley.kubectl.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Exit codes of every {@code kubectl parley} command. Scripts branch on them, so they never change meaning;
 * docs/kubectl-parley.md lists the same table and every command's {@code --help} prints it.
 */
public final class ExitCodes {
    public static final int OK = 0;
    /** Anything else that went wrong: API error, forbidden, a pod that is not a Parley media pod. */
    public static final int ERROR = 1;
    /** Bad flags or values (picocli's usage code). */
    public static final int USAGE = 2;
    /** The pod or meeting does not exist (meeting: no owner in etcd). */
    public static final int NOT_FOUND = 3;
    /** The Kubernetes API server, etcd or the meeting owner's internal API could not be reached. */
    public static final int UNREACHABLE = 4;
    /** {@code drain --wait} gave up before the pod was gone. */
    public static final int TIMED_OUT = 5;

    private ExitCodes() {
    }

    /** For picocli's "Exit codes:" help section, in order. */
    public static Map<String, String> helpList() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(" 0", "ok");
        m.put(" 1", "error (API error, forbidden, not a Parley SFU/TURN pod)");
        m.put(" 2", "usage error (unknown flag, bad value)");
        m.put(" 3", "not found (pod, meeting owner)");
        m.put(" 4", "unreachable (API server, etcd, owner's internal API)");
        m.put(" 5", "timed out (drain --wait)");
        return m;
    }
}
