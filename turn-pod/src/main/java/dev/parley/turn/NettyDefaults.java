package dev.parley.turn;

import io.netty.util.ResourceLeakDetector;

/**
 * Netty settings for the production process (not for tests, which keep leak detection on). Applied by
 * {@link Main} before any buffer is allocated; an explicit {@code -Dio.netty.leakDetection.level} wins.
 */
final class NettyDefaults {
    static final String LEAK_LEVEL = "io.netty.leakDetection.level";

    private NettyDefaults() {
    }

    /**
     * Leak detection off: at its default level Netty records a stack trace for one buffer in 128 and touches every
     * message in the pipeline, measurable on a relay that handles one buffer per packet. Leaks are caught by the
     * test suite, where detection stays on.
     */
    static void apply() {
        if (System.getProperty(LEAK_LEVEL) == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }
}
