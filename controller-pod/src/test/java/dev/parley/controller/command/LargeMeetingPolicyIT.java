package dev.parley.controller.command;

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

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The large-meeting policy (issue 18, docs/api.md "Large meetings") on a real controller with PostgreSQL and etcd:
 * above {@code large_meeting_size} an attendee joins muted with camera off; under {@code hosts_and_presenters} its
 * grant allows no audio or video, so a real SFU drops what it sends (counted) and forwards nothing until a host runs
 * {@code allow_speak}; the raise-hand queue keeps its order, one hand per participant, and its events reach the host's
 * socket; bad settings are 400 problems that write nothing.
 */
@Timeout(180)
class LargeMeetingPolicyIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");   // an SFU double for sockets
    /** The real SFU's own MediaRegion: the media test's participants name it, so they land there, not on the double. */
    private static final String REGION = "policy-region";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SfuServer sfu(String pod) throws Exception {
        return new SfuServer(new SfuConfig(pod, REGION, "127.0.0.1", "127.0.0.1", 0, 0, 0, ControllerHarness.INTERNAL_SECRET,
                h.ticketKey.toPublicJWK().toJSONString(), h.etcd.endpoints().get(0), 5, false, 4_000_000, true,
                SfuConfig.DEFAULT_CONSENT_TIMEOUT_MS, 1));
    }

    @Test
    void aboveTheSizeAnAttendeeJoinsMutedAndItsMediaIsDroppedUntilAHostAllowsItToSpeak() throws Exception {
        SfuServer sfu = sfu("sfu-policy");
        Thread driver = null;
        try {
            Scenario s = new Scenario(h).meeting(false, 0,
                    ",\"large_meeting_size\":2,\"unmute_policy\":\"hosts_and_presenters\"");
            assertThat(meeting(s).path("large_meeting_size").asInt()).isEqualTo(2);
            assertThat(meeting(s).path("unmute_policy").asText()).isEqualTo("hosts_and_presenters");
            // the host is participant 1, the listener 2 (not above the size), the speaker 3 (above it)
            String[] listener = attendee(s, false);
            String[] speaker = attendee(s, true);
            JsonNode self = s.snapshot(0, speaker[0]).path("self");
            assertThat(self.path("joined_muted").asBoolean()).isTrue();
            assertThat(self.path("audio_publish_allowed").asBoolean()).as("hosts_and_presenters: no audio grant").isFalse();
            assertThat(self.path("video_publish_allowed").asBoolean()).as("nor video").isFalse();
            assertThat(s.snapshot(0, s.hostToken).path("self").path("audio_publish_allowed").asBoolean())
                    .as("the host may speak").isTrue();

            waitFor(() -> h.controllers.get(0).getBean(dev.parley.controller.media.SfuSelector.class)
                    .get("sfu-policy").isPresent(), 10_000, "the SFU in the controller's registry view");
            Publisher pub = new Publisher(speaker[1], true);
            ClientTransport pt = new ClientTransport(pub);
            pub.transport = pt;
            Subscriber sub = new Subscriber(listener[1], 1, new Recorder(3));
            AtomicLong audio = new AtomicLong(), video = new AtomicLong();
            ClientTransport st = new ClientTransport((tr, buf, len, now) -> {
                if (len >= 12 && !RtpPacket.isRtcp(buf, 0, len)) {
                    int type = RtpPacket.payloadType(buf, 0);
                    if (type == 111) audio.incrementAndGet();
                    else if (type == 96) video.incrementAndGet();
                }
                sub.onSrtp(tr, buf, len, now);
            });
            sub.transport = st;
            WsClient ws = connect(s, listener, "subscribe", st, sub.offer(st));
            WsClient wp = connect(s, speaker, "publish", pt, pub.offer(pt));
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

            // not allowed to speak: the SFU drops the speaker's packets (counted) and forwards none of them
            long dropped0 = sfu.metrics().drops("grant_publish");
            waitFor(() -> sfu.metrics().drops("grant_publish") - dropped0 > 100, 10_000, "the speaker's packets dropped by its grant");
            Thread.sleep(1_000);
            assertThat(audio.get()).as("no audio of an attendee not allowed to speak").isZero();
            assertThat(video.get()).as("no video either").isZero();

            // it raises its hand; the host allows the first hand in the queue to speak
            var raise = attendeeCommand(s, speaker[0], "{\"type\":\"raise_hand\"}");
            assertThat(raise.status()).as(raise.raw()).isEqualTo(201);
            JsonNode queue = s.snapshot(0, s.hostToken).path("raised_hands");
            assertThat(queue).hasSize(1);
            assertThat(queue.get(0).path("participant_id").asText()).isEqualTo(speaker[1]);
            applied(s, "{\"type\":\"allow_speak\",\"participant_id\":\"" + queue.get(0).path("participant_id").asText() + "\"}");
            waitFor(() -> audio.get() > 30 && video.get() > 30, 10_000, "the allowed speaker's audio and video at the listener");
            assertThat(s.snapshot(0, s.hostToken).path("raised_hands")).as("allowing lowered the hand").isEmpty();
            assertThat(s.snapshot(0, speaker[0]).path("self").path("speak_allowed").asBoolean()).isTrue();

            // taken back: nothing is forwarded again
            applied(s, "{\"type\":\"allow_speak\",\"participant_id\":\"" + speaker[1] + "\",\"allowed\":false}");
            Thread.sleep(300);
            long a0 = audio.get(), v0 = video.get(), d0 = sfu.metrics().drops("grant_publish");
            Thread.sleep(1_000);
            assertThat(audio.get() - a0 + video.get() - v0).as("nothing of a speaker no longer allowed").isZero();
            assertThat(sfu.metrics().drops("grant_publish") - d0).as("dropped and counted again").isGreaterThan(50);
            ws.close();
            wp.close();
        } finally {
            if (driver != null) driver.interrupt();
            sfu.close();
        }
    }

    @Test
    void raisedHandsQueueInOrderOncePerParticipantAndReachTheHostsSocket() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0), b = s.admittedAttendee(0), c = s.admittedAttendee(0);
        try (WsClient host = s.joinedSocket(new String[]{s.hostToken, s.hostPid}, "hands-host")) {
            String firstAt = null;
            for (String[] who : List.of(c, a, b, c)) {              // c raises twice: one hand, its first place
                var r = attendeeCommand(s, who[0], "{\"type\":\"raise_hand\"}");
                assertThat(r.status()).as(r.raw()).isEqualTo(201);
                assertThat(r.body().path("hand_raised").asBoolean()).isTrue();
                if (who == c && firstAt == null) firstAt = r.text("raised_at");
                else if (who == c) assertThat(r.text("raised_at")).as("raising again keeps the place").isEqualTo(firstAt);
            }
            assertThat(queue(s)).containsExactly(c[1], a[1], b[1]);
            assertThat(events(host, "hand_raised", 3)).extracting(e -> e.path("participant_id").asText())
                    .containsExactly(c[1], a[1], b[1]);

            // an attendee may not lower someone else's hand nor let anyone speak
            var other = attendeeCommand(s, a[0], "{\"type\":\"lower_hand\",\"participant_id\":\"" + b[1] + "\"}");
            assertThat(other.status()).as(other.raw()).isEqualTo(403);
            assertThat(other.text("code")).isEqualTo("not_a_moderator");
            var speak = attendeeCommand(s, a[0], "{\"type\":\"allow_speak\",\"participant_id\":\"" + a[1] + "\"}");
            assertThat(speak.status()).as(speak.raw()).isEqualTo(403);
            var forOther = attendeeCommand(s, a[0], "{\"type\":\"raise_hand\",\"participant_id\":\"" + b[1] + "\"}");
            assertThat(forOther.status()).as(forOther.raw()).isEqualTo(403);
            assertThat(queue(s)).containsExactly(c[1], a[1], b[1]);

            // the host lets the first speak (its hand goes down), a lowers its own, the host lowers b's
            assertThat(s.command(0, "{\"type\":\"allow_speak\",\"participant_id\":\"" + c[1] + "\"}").status()).isEqualTo(201);
            assertThat(queue(s)).containsExactly(a[1], b[1]);
            assertThat(attendeeCommand(s, a[0], "{\"type\":\"lower_hand\"}").status()).isEqualTo(201);
            assertThat(attendeeCommand(s, a[0], "{\"type\":\"lower_hand\"}").status()).as("lowering twice is a no-op").isEqualTo(201);
            assertThat(s.command(0, "{\"type\":\"lower_hand\",\"participant_id\":\"" + b[1] + "\"}").status()).isEqualTo(201);
            assertThat(queue(s)).isEmpty();
            assertThat(events(host, "hand_lowered", 3)).extracting(e -> e.path("participant_id").asText() + ":" + e.path("reason").asText())
                    .containsExactly(c[1] + ":allowed_to_speak", a[1] + ":lowered", b[1] + ":lowered_by_moderator");
            assertThat(h.count("SELECT count(*) FROM control_events WHERE meeting_id = '" + s.meetingId
                    + "' AND event_type IN ('hand_raised', 'hand_lowered')")).as("one event per real change").isEqualTo(6);
        }
    }

    @Test
    void theUnmutePolicyFollowsTheHostsChangesAndAdmissions() throws Exception {
        Scenario s = new Scenario(h).meeting(true);
        String[] a = s.admittedAttendee(0), presenter = s.admittedAttendee(0);
        assertThat(publish(s, a)).as("everyone: audio and video").isEqualTo("true/true");
        assertThat(s.command(0, "{\"type\":\"allow_speak\",\"participant_id\":\"" + presenter[1] + "\"}").status()).isEqualTo(201);

        var set = s.command(0, "{\"type\":\"set_large_meeting_policy\",\"unmute_policy\":\"hosts_and_presenters\"}");
        assertThat(set.status()).as(set.raw()).isEqualTo(201);
        assertThat(set.text("unmute_policy")).isEqualTo("hosts_and_presenters");
        assertThat(publish(s, a)).as("an attendee loses audio and video").isEqualTo("false/false");
        assertThat(publish(s, presenter)).as("a presenter keeps them").isEqualTo("true/true");
        assertThat(s.snapshot(0, s.hostToken).path("self").path("audio_publish_allowed").asBoolean()).as("the host too").isTrue();
        String[] late = s.admittedAttendee(0);   // admitted from the waiting room under the policy
        assertThat(publish(s, late)).isEqualTo("false/false");
        var bySql = h.scalar("SELECT audio_publish_allowed || '/' || video_publish_allowed FROM meeting_participants "
                + "WHERE participant_id = '" + late[1] + "'");
        assertThat(bySql).isEqualTo("false/false");
        // a moderator is never restricted: made cohost it may publish, made attendee again it may not
        assertThat(s.command(0, "{\"type\":\"set_role\",\"participant_id\":\"" + late[1] + "\",\"role\":\"cohost\"}").status()).isEqualTo(201);
        assertThat(publish(s, late)).as("a cohost").isEqualTo("true/true");
        assertThat(s.command(0, "{\"type\":\"set_role\",\"participant_id\":\"" + late[1] + "\",\"role\":\"attendee\"}").status()).isEqualTo(201);
        assertThat(publish(s, late)).as("an attendee again").isEqualTo("false/false");
        assertThat(meeting(s).path("unmute_policy").asText()).isEqualTo("hosts_and_presenters");

        assertThat(s.command(0, "{\"type\":\"set_large_meeting_policy\",\"unmute_policy\":\"everyone\",\"large_meeting_size\":null}")
                .status()).isEqualTo(201);
        assertThat(publish(s, a)).as("everyone again: given back").isEqualTo("true/true");
        assertThat(publish(s, late)).isEqualTo("true/true");
        assertThat(meeting(s).path("large_meeting_size").isNull()).as("null = off").isTrue();

        var notHost = attendeeCommand(s, a[0], "{\"type\":\"set_large_meeting_policy\",\"unmute_policy\":\"everyone\"}");
        assertThat(notHost.status()).as(notHost.raw()).isEqualTo(403);
        assertThat(notHost.text("code")).isEqualTo("not_a_moderator");
    }

    @Test
    void badSettingsAre400ProblemsAndWriteNothing() throws Exception {
        Scenario s = new Scenario(h);
        long before = h.count("SELECT count(*) FROM meetings");
        for (String bad : List.of("\"large_meeting_size\":0", "\"large_meeting_size\":10001", "\"large_meeting_size\":\"50\"",
                "\"large_meeting_size\":2.5", "\"large_meeting_size\":true", "\"unmute_policy\":\"nobody\"",
                "\"unmute_policy\":5", "\"unmute_policy\":\"\"")) {
            var r = h.call(0, "POST", "/v1/meetings", s.hostToken, "bad-" + UUID.randomUUID(),
                    "{\"title\":\"t\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\"," + bad + "}");
            assertThat(r.status()).as(bad + ": " + r.raw()).isEqualTo(400);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.text("code")).as(r.raw()).isEqualTo("invalid_field");
            assertThat(r.text("field")).as(r.raw()).isEqualTo(bad.substring(1, bad.indexOf('"', 1)));
        }
        assertThat(h.count("SELECT count(*) FROM meetings")).isEqualTo(before);

        s.meeting(false);
        assertThat(meeting(s).path("large_meeting_size").asInt()).as("default").isEqualTo(50);
        assertThat(meeting(s).path("unmute_policy").asText()).as("default").isEqualTo("everyone");
        long commands = h.count("SELECT count(*) FROM commands WHERE meeting_id = '" + s.meetingId + "'");
        var none = s.command(0, "{\"type\":\"set_large_meeting_policy\"}");
        assertThat(none.status()).as(none.raw()).isEqualTo(400);
        assertThat(none.text("code")).isEqualTo("missing_field");
        for (String bad : List.of("\"large_meeting_size\":-3", "\"unmute_policy\":null", "\"unmute_policy\":\"all\"")) {
            var r = s.command(0, "{\"type\":\"set_large_meeting_policy\"," + bad + "}");
            assertThat(r.status()).as(bad + ": " + r.raw()).isEqualTo(400);
            assertThat(r.text("code")).isEqualTo("invalid_field");
        }
        var ok = h.call(0, "POST", "/v1/meetings/" + s.meetingId + "/commands", s.hostToken, "same-key",
                "{\"type\":\"set_large_meeting_policy\",\"large_meeting_size\":7}");
        assertThat(ok.status()).as(ok.raw()).isEqualTo(201);
        var reused = h.call(0, "POST", "/v1/meetings/" + s.meetingId + "/commands", s.hostToken, "same-key",
                "{\"type\":\"set_large_meeting_policy\",\"large_meeting_size\":8}");
        assertThat(reused.status()).as(reused.raw()).isEqualTo(409);
        assertThat(h.count("SELECT count(*) FROM commands WHERE meeting_id = '" + s.meetingId + "'"))
                .as("only the good command was stored").isEqualTo(commands + 1);
        assertThat(meeting(s).path("large_meeting_size").asInt()).isEqualTo(7);

        var hand = s.command(0, "{\"type\":\"lower_hand\",\"participant_id\":\"not-a-uuid\"}");
        assertThat(hand.status()).as(hand.raw()).isEqualTo(400);
        assertThat(hand.text("field")).isEqualTo("participant_id");
    }

    /** A new attendee (no waiting room), checking {@code joined_muted} in its join answer; {token, participant id}. */
    private static String[] attendee(Scenario s, boolean joinedMuted) {
        String token = ControllerHarness.token(s.tenant, UUID.randomUUID());
        var j = s.join(0, token, UUID.randomUUID());
        assertThat(j.status()).as(j.raw()).isEqualTo(201);
        assertThat(j.body().path("joined_muted").asBoolean()).as(j.raw()).isEqualTo(joinedMuted);
        return new String[]{token, j.text("participant_id")};
    }

    private static ControllerHarness.Res attendeeCommand(Scenario s, String token, String body) {
        return h.call(0, "POST", "/v1/meetings/" + s.meetingId + "/commands", token, "cmd-" + UUID.randomUUID(), body);
    }

    private static List<String> queue(Scenario s) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : s.snapshot(0, s.hostToken).path("raised_hands")) out.add(n.path("participant_id").asText());
        return out;
    }

    private static String publish(Scenario s, String[] who) {
        JsonNode self = s.snapshot(0, who[0]).path("self");
        return self.path("audio_publish_allowed").asBoolean() + "/" + self.path("video_publish_allowed").asBoolean();
    }

    private static JsonNode meeting(Scenario s) {
        var r = h.call(0, "GET", "/v1/meetings/" + s.meetingId, s.hostToken, null, null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.body();
    }

    /** The next {@code n} control events of {@code type} on the socket (others skipped). */
    private static List<JsonNode> events(WsClient ws, String type, int n) throws InterruptedException {
        List<JsonNode> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (out.size() < n && System.nanoTime() < deadline) {
            JsonNode m = ws.received.poll(200, TimeUnit.MILLISECONDS);
            if (m != null && "event".equals(m.path("type").asText()) && type.equals(m.path("event").path("type").asText())) {
                out.add(m.path("event"));
            }
        }
        JsonNode extra = ws.received.poll(300, TimeUnit.MILLISECONDS);
        while (extra != null) {
            assertThat(extra.path("event").path("type").asText()).as("no further " + type + ": " + extra).isNotEqualTo(type);
            extra = ws.received.poll(100, TimeUnit.MILLISECONDS);
        }
        return out;
    }

    /** Reserves a transport, joins the signaling socket and connects one media connection. */
    private static WsClient connect(Scenario s, String[] who, String kind, ClientTransport t, String offer) throws Exception {
        var res = s.transportIn(0, who[0], who[1], 0, "t-" + who[1], REGION);
        assertThat(res.status()).as(res.raw()).isEqualTo(200);
        WsClient ws = new WsClient(res.text("signaling_endpoint"));
        ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + res.text("connect_ticket") + "\"}");
        assertThat(ws.await("joined", 5000)).isNotNull();
        ws.send(JSON.createObjectNode().put("type", "offer").put("transport", kind).put("sdp", offer).toString());
        JsonNode answer = ws.await("answer", 10_000);
        t.connect(answer.get("sdp").asText());
        return ws;
    }

    /** Runs a host command (retried while the owner's lease is in doubt) and waits for {@code applied}. */
    private static void applied(Scenario s, String body) throws InterruptedException {
        var r = s.command(0, body);
        for (int i = 0; i < 20 && r.status() == 503; i++) {
            Thread.sleep(250);
            r = s.command(0, body);
        }
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        String cmd = r.text("command_id");
        waitFor(() -> "applied".equals(h.call(0, "GET", "/v1/meetings/" + s.meetingId + "/commands/" + cmd, s.hostToken,
                null, null).text("media_enforcement")), 5_000, "command applied: " + body);
    }

    private static void waitFor(BooleanSupplier c, long ms, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (!c.getAsBoolean()) {
            if (System.currentTimeMillis() > end) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(50);
        }
    }
}
