package dev.parley.bench.janus;

import dev.parley.bench.media.ClientTransport;
import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.Subscriber;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Janus 1.1 with its VideoRoom plugin, driven over the HTTP REST transport: one room per meeting; a publisher is a
 * handle that joins as {@code publisher} and publishes with the client's JSEP offer (Janus answers); a subscriber is
 * a handle that joins as {@code subscriber} to the feeds, and answers Janus's offer with {@code start}. The client
 * trickles its loopback candidate and end-of-candidates; Janus's own candidates are in its SDP (half trickle).
 */
final class JanusServer implements MediaServer {
    private final JanusProcess process;
    private final JanusHttp api;
    private final long admin;
    private final Map<String, Long> rooms = new ConcurrentHashMap<>();
    private final Map<String, Long> feeds = new ConcurrentHashMap<>();     // publisher pid → Janus feed id
    private final String address;
    private long nextRoom = 1000;

    JanusServer(String binary, Path configDir, Path workDir, String iceAddress, String rtpPorts, int httpPort)
            throws IOException, InterruptedException {
        process = new JanusProcess(binary, configDir, workDir, iceAddress, rtpPorts, httpPort);
        // Janus's ICE sockets are tied to that interface: it cannot answer 127.0.0.1, so the clients bind there too
        address = iceAddress;
        api = new JanusHttp(process.api);
        try {
            api.open();
            admin = api.attach();
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override public String name() { return "janus"; }

    @Override public long pid() { return process.pid(); }

    @Override
    public synchronized void addMeeting(String meeting, int publishers) throws Exception {
        long room = nextRoom++;
        JanusApi.Reply r = api.sync(admin, JanusApi.createRoom(room, publishers));
        if (!"created".equals(r.videoroom())) throw new IOException("janus create room " + room + ": " + r.pluginData());
        rooms.put(meeting, room);
    }

    @Override
    public void publish(String meeting, Publisher p) throws Exception {
        long room = rooms.get(meeting);
        long h = api.attach();
        JanusApi.Reply joined = api.request(h, JanusApi.joinPublisher(room, p.pid), null, null);
        if (!"joined".equals(joined.videoroom())) throw new IOException("janus join " + p.pid + ": " + joined.pluginData());
        ClientTransport t = new ClientTransport(p, address);
        p.transport = t;
        String offer = p.offer(t);
        JanusApi.Reply answer = api.request(h, JanusApi.publish(), "offer", offer);
        if (!"answer".equals(answer.jsepType())) throw new IOException("janus publish " + p.pid + ": no JSEP answer");
        debug("publish offer", offer);
        debug("publish answer", answer.jsepSdp());
        api.trickle(h, "0", JanusSdp.candidate(address, t.localPort()));
        // Janus answers setup:active to the client's actpass: Janus is the DTLS client here
        t.connect(answer.jsepSdp(), JanusSdp.remoteIsDtlsClient(answer.jsepSdp()));
        api.awaitWebrtcUp(h, Duration.ofSeconds(15));     // a feed can be subscribed to once its PeerConnection is up
        feeds.put(p.pid, joined.pluginData().get("id").asLong());
    }

    @Override
    public void subscribe(String meeting, Subscriber s, List<Publisher> from) throws Exception {
        long room = rooms.get(meeting);
        List<Long> ids = new ArrayList<>();
        for (Publisher p : from) ids.add(feeds.get(p.pid));
        long h = api.attach();
        JanusApi.Reply attached = api.request(h, JanusApi.joinSubscriber(room, ids), null, null);
        if (!"attached".equals(attached.videoroom()) || !"offer".equals(attached.jsepType())) {
            throw new IOException("janus subscribe " + s.pid + ": " + attached.pluginData());
        }
        ClientTransport t = new ClientTransport(s, address);
        s.transport = t;
        String offer = attached.jsepSdp();
        api.request(h, JanusApi.start(), "answer", JanusSdp.answer(offer, t.transportLines("active")));
        api.trickle(h, "0", JanusSdp.candidate(address, t.localPort()));
        t.connect(offer, false);                            // answered setup:active: the client is the DTLS client
    }

    /** -Dbench.janus.debug=true prints the SDP exchanged (no secrets: ICE passwords are per-connection, throwaway). */
    private static void debug(String what, String sdp) {
        if (Boolean.getBoolean("bench.janus.debug")) System.err.println("--- " + what + "\n" + sdp);
    }

    @Override
    public void close() {
        api.close();
        process.close();
    }
}
