package dev.parley.sfu.bwe;

/**
 * Tunables of one subscriber transport's bandwidth estimator. Defaults follow the GCC draft
 * (draft-ietf-rmcat-gcc-02) and what libwebrtc-derived SFUs ship with; they are grouped here so that
 * tests and the SFU's configuration can override them without touching the algorithm classes.
 *
 * @param startBitrateBps estimate before any feedback arrived (also the base of the initial probes)
 * @param minBitrateBps   the estimate never goes below this (audio must still fit)
 * @param maxBitrateBps   the estimate never goes above this (what a subscriber could ever need)
 * @param probingEnabled  whether the probe controller may request padding/RTX clusters
 * @param alrProbeIntervalMicros how often to probe while application-limited and the allocation wants more
 */
public record BweConfig(long startBitrateBps, long minBitrateBps, long maxBitrateBps, boolean probingEnabled,
                        long alrProbeIntervalMicros) {

    public BweConfig {
        if (minBitrateBps <= 0 || startBitrateBps < minBitrateBps || maxBitrateBps < startBitrateBps) {
            throw new IllegalArgumentException("need 0 < min <= start <= max, got min=" + minBitrateBps
                    + " start=" + startBitrateBps + " max=" + maxBitrateBps);
        }
        if (alrProbeIntervalMicros <= 0) {
            throw new IllegalArgumentException("alrProbeIntervalMicros must be positive");
        }
    }

    /** 300 kbps start, 30 kbps floor, 10 Mbps ceiling, probing on, ALR probes every 3 s. */
    public static BweConfig defaults() {
        return new BweConfig(300_000, 30_000, 10_000_000, true, 3_000_000);
    }

    public BweConfig withStartBitrate(long bps) {
        return new BweConfig(bps, minBitrateBps, maxBitrateBps, probingEnabled, alrProbeIntervalMicros);
    }

    public BweConfig withProbing(boolean enabled) {
        return new BweConfig(startBitrateBps, minBitrateBps, maxBitrateBps, enabled, alrProbeIntervalMicros);
    }
}
