package dev.parley.controller.relay;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.bench.media.Publisher;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import dev.parley.sfu.SfuServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.UUID;

import static dev.parley.controller.relay.RelayTestKit.connect;
import static dev.parley.controller.relay.RelayTestKit.relays;
import static dev.parley.controller.relay.RelayTestKit.waitFor;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Owner takeover of a meeting on two SFUs (issue 17): controller A owns it and relays the publisher's tracks from
 * one SFU to the other; A stops (its lease and owner key go with it) and controller B takes the meeting over with a
 * new epoch. The SFUs post their track events to A's events URL, so B hears nothing of the tracks published before:
 * it must read them from the SFUs ({@code GET /internal/v1/meetings/{id}/tracks}) and make its own relays, which the
 * subscriber's media crosses again. Prints the time from A's stop to media at the subscriber and the longest gap.
 */
@Timeout(240)
class RelayTakeoverIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(0, "controller-0", "controller-1");

    @Test
    void aNewOwnerRelearnsTheTracksFromTheSfusAndRecreatesTheRelays() throws Exception {
        SfuServer eu = RelayTestKit.sfu(h, "sfu-eu", h.region), us = RelayTestKit.sfu(h, "sfu-us", "far-away");
        Thread driver = null;
        try {
            RelayTestKit.awaitRegistered(h, 0, "sfu-eu", "sfu-us");
            RelayTestKit.awaitRegistered(h, 1, "sfu-eu", "sfu-us");
            Scenario s = new Scenario(h).meeting(false); // owned by controller 0 (A)
            UUID m = UUID.fromString(s.meetingId);
            String[] a = s.admittedAttendee(0), b = s.admittedAttendee(0);
            Publisher pub = RelayTestKit.publisher(a[1]);
            RelayTestKit.Arrivals sub = new RelayTestKit.Arrivals(b[1]);
            WsClient wb = connect(s, 0, b, "far-away", "subscribe", sub.transport, sub.offer());
            WsClient wa = connect(s, 0, a, null, "publish", pub.transport, pub.offer(pub.transport));
            driver = RelayTestKit.drive(pub, sub.transport);
            waitFor(() -> sub.audio.get() > 60 && sub.video.get() > 60, 20_000, "media through A's relays");
            JsonNode before = relays(eu);
            assertThat(before).as("A's relays out of the origin").hasSize(2);
            long epochA = before.get(0).get("controller_epoch").asLong();

            // A stops: its lease, owner key and grant renewals go with it; the first request to B makes B the owner
            long stop = System.nanoTime();
            sub.mark();
            h.stopController(0);
            wa.close();
            wb.close();
            String[] c = s.admittedAttendee(1);
            assertThat(c[1]).isNotNull();
            long took = System.nanoTime();
            Long epochB = h.controllers.get(1).getBean(dev.parley.controller.media.GrantService.class).epochOf(m);
            assertThat(epochB).as("B owns the meeting").isNotNull().isGreaterThan(epochA);

            // B re-learns the tracks from the SFUs and makes its own relays at its epoch
            RelayDriver driverB = h.controllers.get(1).getBean(RelayDriver.class);
            waitFor(() -> driverB.state(m).size() == 2, 15_000, "B's relays for the tracks published before it took over");
            waitFor(() -> {
                JsonNode out = relays(eu), in = relays(us);
                if (out.size() != 2 || in.size() != 2) return false;
                for (JsonNode r : out) if (r.get("controller_epoch").asLong() != epochB) return false;
                for (JsonNode r : in) if (r.get("controller_epoch").asLong() != epochB) return false;
                return true;
            }, 10_000, "only B's relays at both SFUs (A's fenced by B's epoch)");
            long relaysAt = System.nanoTime(), a0 = sub.audio.get(), v0 = sub.video.get();
            waitFor(() -> sub.audio.get() > a0, 10_000, "audio crossing B's relays");
            long back = System.nanoTime();
            waitFor(() -> sub.audio.get() - a0 > 50 && sub.video.get() - v0 > 50, 10_000, "media crossing B's relays");
            for (JsonNode r : relays(eu)) assertThat(r.get("packets").asLong()).as("packets on B's relay").isPositive();
            System.out.printf("takeover: B owner %d ms after A stopped; only B's relays at both SFUs after %d ms; audio "
                            + "through them after %d ms; longest audio gap at the subscriber %d ms%n", (took - stop) / 1_000_000,
                    (relaysAt - stop) / 1_000_000, (back - stop) / 1_000_000, sub.maxGapMillis());
        } finally {
            if (driver != null) driver.interrupt();
            eu.close();
            us.close();
        }
    }
}
