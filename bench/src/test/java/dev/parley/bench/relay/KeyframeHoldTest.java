package dev.parley.bench.relay;

import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.Subscriber;
import dev.parley.media.codec.Vp8Descriptor;
import dev.parley.media.rtp.RtpPacket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Time to join (docs/sfu.md "Time to join"): the keyframe a new subscriber's handshake asked for arrives while DTLS
 * still runs; the SFU holds it and the packets after it, and the subscriber's first video packet is that keyframe,
 * the moment DTLS is done — not the answer to a second keyframe request sent once connected. A real SFU server on
 * loopback, the load client's VP8 simulcast publisher (a keyframe on every PLI) and a subscriber whose DTLS
 * handshake starts 600 ms after its ICE check, as a busy browser's does.
 */
class KeyframeHoldTest {
    private static final long DTLS_DELAY_MS = 600;

    @Test
    @Timeout(60)
    void theKeyframeAskedForAtTheHandshakeIsTheFirstThingTheSubscriberGets() throws Exception {
        try (RelayLab lab = new RelayLab()) {
            Publisher pub = lab.publish(lab.a, "m-hold", "pub");
            Thread driver = lab.drive(List.of(pub), List.of());
            Subscriber sub = null;
            try {
                Thread.sleep(1000); // the publisher's first keyframes are long gone
                // the first video packet: {arrived, sent (the publisher's stamp), keyframe start 1/0}
                AtomicReference<long[]> first = new AtomicReference<>();
                sub = lab.subscribeSlowly(lab.a, "m-hold", "sub", (t, b, len, now) -> {
                    if (first.get() != null || len < 12 || RtpPacket.isRtcp(b, 0, len) || RtpPacket.payloadType(b, 0) != 96) return;
                    int n = t.rx.unprotectRtp(b, 0, len);
                    if (n < 0) return;
                    int hl = RtpPacket.headerLength(b, 0, n), pl = RtpPacket.payloadLength(b, 0, n);
                    Vp8Descriptor d = new Vp8Descriptor();
                    boolean key = hl > 0 && pl > 0 && d.parse(b, hl, pl) && d.keyframe;
                    long sent = 0;
                    for (int i = 0; i < 8; i++) sent = (sent << 8) | (b[n - 8 + i] & 0xFF);
                    first.compareAndSet(null, new long[]{now, sent, key ? 1 : 0});
                }, DTLS_DELAY_MS);
                long connected = sub.transport.connectedAtNanos;
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (first.get() == null && System.nanoTime() < deadline) Thread.sleep(10);
                long[] f = first.get();
                assertThat(f).as("a video packet reached the subscriber").isNotNull();
                System.out.printf("keyframe hold: first video packet sent %d ms before DTLS was done, arrived %d ms after it%n",
                        (connected - f[1]) / 1_000_000, (f[0] - connected) / 1_000_000);
                assertThat(f[2]).as("the first video packet starts a keyframe").isEqualTo(1);
                // held: sent before DTLS was done (a periodic keyframe of the publisher may restart the hold late in the
                // handshake, so no more margin than 10 ms); the answer to a PLI sent once connected comes after
                assertThat(connected - f[1]).as("it was sent while the subscriber's handshake still ran (held), not after")
                        .isGreaterThan(10_000_000L);
                assertThat(f[0] - connected).as("it arrives as soon as DTLS is done").isLessThan(300_000_000L);
                assertThat(RelayLab.series(lab.metrics(lab.a), "parley_sfu_keyframe_holds_replayed_total")).isGreaterThanOrEqualTo(1);
            } finally {
                driver.interrupt();
                pub.transport.close();
                if (sub != null) sub.transport.close();
            }
        }
    }
}
