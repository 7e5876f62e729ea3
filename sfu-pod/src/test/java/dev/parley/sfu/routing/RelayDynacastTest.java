package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.sfu.events.EventPublisher;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A relay to another SFU counts for dynacast like a receiver on this SFU: a simulcast track nobody here watches
 * keeps the layers a relay carries on (else the publisher would be told to stop what crosses), and drops to the
 * lowest layer once the relay is gone.
 */
class RelayDynacastTest {
    private static final long S = 1_000_000_000L;
    private final EventPublisher events = new EventPublisher(new ObjectMapper(), new InternalAuth("relay-dynacast-secret-0123456789"), "sfu");

    private static PublishedTrack simulcast(Meeting m) {
        Participant p = new Participant("pub", m);
        m.participants.put("pub", p);
        PublishedTrack t = new PublishedTrack(p, "1", true, "VP8", 96, 0, 90000, List.of("q", "h", "f"), 0);
        p.tracksByMid.put("1", t);
        m.dynacast.addTrack(t);
        return t;
    }

    private static TrackTap relayOfLayers(int highest) {
        return new TrackTap() {
            @Override public void onPacket(int l, byte[] b, int off, int len, int hl, boolean k, long now) { }
            @Override public int highestLayer() { return highest; }
        };
    }

    private void run(Meeting m, long from, long to) {
        for (long now = from; now <= to; now += S / 2) m.dynacast.tick(now, events);
    }

    @Test
    void aRelayOfTheTopLayerKeepsItOnAndItsEndLetsItStop() {
        Meeting m = new Meeting("m");
        PublishedTrack t = simulcast(m);
        TrackTap relay = relayOfLayers(2);
        t.taps = new TrackTap[]{relay};
        run(m, S, 20 * S);
        assertThat(m.dynacast.activeMax(t.trackId)).as("the relay carries f").isEqualTo(2);
        t.taps = PublishedTrack.NO_TAPS;
        run(m, 21 * S, 40 * S);
        assertThat(m.dynacast.activeMax(t.trackId)).as("nobody needs h and f any more").isEqualTo(0);
    }

    @Test
    void aRelayOfTheLowLayerOnlyLetsTheOthersStop() {
        Meeting m = new Meeting("m");
        PublishedTrack t = simulcast(m);
        t.taps = new TrackTap[]{relayOfLayers(0)};
        run(m, S, 20 * S);
        assertThat(m.dynacast.activeMax(t.trackId)).isEqualTo(0);
    }
}
