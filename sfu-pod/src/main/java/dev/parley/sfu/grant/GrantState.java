package dev.parley.sfu.grant;

import dev.parley.platform.grant.Grant;

/**
 * A participant's grant as the media path sees it: immutable, swapped atomically, with the expiry computed
 * from this SFU's monotonic clock at receipt ({@link System#nanoTime()}), never from the controller's clock.
 */
public record GrantState(long epoch, long version, boolean audio, boolean video, boolean screen, boolean subscribe,
                         long expiresAtNanos) {
    public static final GrantState NONE = new GrantState(Long.MIN_VALUE, Long.MIN_VALUE, false, false, false, false, 0);

    public static GrantState of(Grant g, long receivedAtNanos) {
        return new GrantState(g.controllerEpoch(), g.version(), g.publish() != null && g.publish().audio(),
                g.publish() != null && g.publish().video(), g.publish() != null && g.publish().screen(), g.subscribe(),
                receivedAtNanos + g.ttlMs() * 1_000_000L);
    }

    public boolean live(long nowNanos) { return nowNanos - expiresAtNanos < 0; }
    public boolean mayPublishAudio(long now) { return audio && live(now); }
    public boolean mayPublishVideo(long now) { return video && live(now); }
    public boolean mayPublishScreen(long now) { return screen && live(now); }
    public boolean maySubscribe(long now) { return subscribe && live(now); }
}
