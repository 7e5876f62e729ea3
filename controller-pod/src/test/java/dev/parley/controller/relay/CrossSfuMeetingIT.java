package dev.parley.controller.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.bench.media.ClientTransport;
import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.Subscriber;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.sfu.SfuServer;
import dev.parley.sfu.config.SfuConfig;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole path of a meeting on two SFUs (issue 17): one controller (real PostgreSQL and etcd), two real SFU
 * servers registered in etcd in two MediaRegions, a publisher (media-core WebRTC client, three-layer simulcast + Opus)
 * placed on the controller's region and a subscriber naming the other region, both through the public API and the
 * signaling socket. The subscriber receives the publisher's media only through a relay the owner's driver created
 * from SFU events; a host removal stops it and reaches {@code applied}; the relay goes after the grace.
 */
@Timeout(180)
class CrossSfuMeetingIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(0, "controller-0");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static SfuServer sfu(String pod, String region) throws Exception {
        return new SfuServer(new SfuConfig(pod, region, "127.0.0.1", "127.0.0.1", 0, 0, 0, ControllerHarness.INTERNAL_SECRET,
                h.ticketKey.toPublicJWK().toJSONString(), h.etcd.endpoints().get(0), 5, false, 4_000_000, true,
                SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 1));
    }

    private static JsonNode state(SfuServer s) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.internalPort()
                        + "/internal/v1/state")).header("Authorization", "Bearer " + ControllerHarness.INTERNAL_SECRET).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    /** Reserves a transport, joins the signaling socket and connects one media connection through the owner. */
    private static WsClient connect(Scenario s, String[] who, String region, String kind, ClientTransport t, String offer)
            throws Exception {
        return RelayTestKit.connect(s, 0, who, region, kind, t, offer);
    }

    @Test
    void participantsOnTwoSfusReceiveEachOtherThroughTheOwnersRelay() throws Exception {
        SfuServer eu = sfu("sfu-eu", h.region), us = sfu("sfu-us", "far-away");
        Thread driver = null;
        try {
            Scenario s = new Scenario(h).meeting(false);
            String[] a = s.admittedAttendee(0), b = s.admittedAttendee(0);
            Publisher pub = new Publisher(a[1], true);
            ClientTransport pt = new ClientTransport(pub);
            pub.transport = pt;
            Subscriber sub = new Subscriber(b[1], 1, new Recorder(3));
            AtomicLong audio = new AtomicLong(), video = new AtomicLong();
            ClientTransport st = new ClientTransport((tr, buf, len, now) -> {
                if (len >= 12 && !RtpPacket.isRtcp(buf, 0, len)) {
                    int pt2 = RtpPacket.payloadType(buf, 0);
                    if (pt2 == 111) audio.incrementAndGet();
                    else if (pt2 == 96) video.incrementAndGet();
                }
                sub.onSrtp(tr, buf, len, now);
            });
            sub.transport = st;
            waitFor(() -> h.controllers.get(0).getBean(dev.parley.controller.media.SfuSelector.class).get("sfu-us").isPresent()
                    && h.controllers.get(0).getBean(dev.parley.controller.media.SfuSelector.class).get("sfu-eu").isPresent(),
                    10_000, "both SFUs in the controller's registry view");
            WsClient wb = connect(s, b, "far-away", "subscribe", st, sub.offer(st));
            WsClient wa = connect(s, a, null, "publish", pt, pub.offer(pt));
            assertThat(h.scalar("SELECT sfu_pod FROM meeting_participants WHERE participant_id = '" + a[1] + "'")).isEqualTo("sfu-eu");
            assertThat(h.scalar("SELECT sfu_pod FROM meeting_participants WHERE participant_id = '" + b[1] + "'")).isEqualTo("sfu-us");
            driver = Thread.ofPlatform().daemon().start(() -> {
                long tick = 0, next = System.nanoTime();
                while (!Thread.currentThread().isInterrupted()) {
                    pub.tick(tick);
                    if (tick % 500 == 0) { pt.check(); st.check(); }
                    tick++;
                    next += 10_000_000L;
                    long sleep = next - System.nanoTime();
                    if (sleep > 0) java.util.concurrent.locks.LockSupport.parkNanos(sleep);
                }
            });

            waitFor(() -> audio.get() > 60 && video.get() > 60, 20_000, "the publisher's audio and video at the subscriber on the other SFU");
            JsonNode out = state(eu).get("relays"), in = state(us).get("relays");
            assertThat(out).as("relays out of the origin").hasSize(2);
            assertThat(in).as("relays into the receiving SFU").hasSize(2);
            for (JsonNode r : out) {
                assertThat(r.get("direction").asText()).isEqualTo("out");
                assertThat(r.get("to_sfu").asText()).isEqualTo("sfu-us");
                assertThat(r.get("packets").asLong()).isPositive();
            }
            UUID m = UUID.fromString(s.meetingId);
            assertThat(h.controllers.get(0).getBean(RelayDriver.class).state(m)).hasSize(2)
                    .allSatisfy(r -> assertThat(r).containsEntry("from_sfu", "sfu-eu").containsEntry("to_sfu", "sfu-us"));

            // the host mutes the publisher's video: it stops on both SFUs (audio goes on) and the command is applied
            String mute = applied(s, "{\"type\":\"set_publish\",\"participant_id\":\"" + a[1] + "\",\"video\":false}");
            Thread.sleep(300);
            long am = audio.get(), vm = video.get();
            Thread.sleep(1_000);
            assertThat(video.get() - vm).as("no video of the muted publisher at the other SFU (" + mute + ")").isZero();
            assertThat(audio.get() - am).as("its audio still crosses").isGreaterThan(20);

            // the host removes the publisher: its media stops on both SFUs and the command is applied
            applied(s, "{\"type\":\"remove_participant\",\"participant_id\":\"" + a[1] + "\"}");
            Thread.sleep(300);
            long a0 = audio.get(), v0 = video.get();
            Thread.sleep(1_000);
            assertThat(audio.get() - a0 + video.get() - v0).as("nothing of the removed publisher reaches the other SFU").isZero();
            waitFor(() -> {
                try {
                    return state(eu).get("relays").isEmpty() && state(us).get("relays").isEmpty();
                } catch (Exception e) {
                    return false;
                }
            }, 5_000, "the removed publisher's relays deleted");
            wa.close();
            wb.close();
        } finally {
            if (driver != null) driver.interrupt();
            eu.close();
            us.close();
        }
    }

    /** Runs a host command (retried while the owner's lease is in doubt) and waits for {@code applied}; its id. */
    private static String applied(Scenario s, String body) throws InterruptedException {
        var r = s.command(0, body);
        for (int i = 0; i < 20 && r.status() == 503; i++) { // lease_in_doubt on a busy machine: retry shortly
            Thread.sleep(250);
            r = s.command(0, body);
        }
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        String cmd = r.text("command_id");
        long at = System.nanoTime();
        waitFor(() -> "applied".equals(h.call(0, "GET", "/v1/meetings/" + s.meetingId + "/commands/" + cmd, s.hostToken,
                null, null).text("media_enforcement")), 5_000, "command applied: " + body);
        System.out.printf("%s: applied seen after %d ms%n", body, (System.nanoTime() - at) / 1_000_000);
        return cmd;
    }

    private static void waitFor(BooleanSupplier c, long ms, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (!c.getAsBoolean()) {
            if (System.currentTimeMillis() > end) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(50);
        }
    }
}
