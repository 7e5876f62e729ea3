package dev.parley.media.netty;

import io.netty.util.ResourceLeakDetector;

/**
 * Netty settings for the data-plane production processes, SFU and TURN (not for tests, which keep leak detection
 * on). Applied by their {@code Main} before any buffer is allocated; an explicit {@code -Dio.netty.leakDetection.level}
 * wins.
 */
public final class NettyDefaults {
    public static final String LEAK_LEVEL = "io.netty.leakDetection.level";

    private NettyDefaults() {
    }

    /**
     * Leak detection off: at its default level Netty records a stack trace for one buffer in 128 and touches every
     * message in the pipeline, measurable on a relay or an SFU that handles one buffer per packet (4 % of the SFU's
     * samples in bench/large's storm). Leaks are caught by the test suite, where detection stays on.
     */
    public static void apply() {
        if (System.getProperty(LEAK_LEVEL) == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }
}
