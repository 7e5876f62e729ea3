package dev.parley.bench.janus;

import com.nimbusds.jose.jwk.ECKey;
import dev.parley.bench.media.ClientTransport;
import dev.parley.bench.media.ControlClient;
import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.SfuProcess;
import dev.parley.bench.media.Subscriber;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Parley SFU as {@code SfuLoadBench} runs it: sfu-pod.jar as its own process on loopback, the bench playing the
 * controller (connect tickets, transports over the internal API, grants renewed every second with a 3 s ttl).
 */
final class ParleyServer implements MediaServer {
    private final SfuProcess sfu;
    private final ControlClient ctl;
    private final Map<String, List<String>> meetings = new ConcurrentHashMap<>();
    private final Thread renewer;

    ParleyServer(Path jar) throws IOException, InterruptedException {
        ECKey key = TicketKeys.generate();
        String secret = "bench-" + UUID.randomUUID(), pod = "sfu-bench";
        sfu = new SfuProcess(jar, secret, key.toPublicJWK().toJSONString(), pod);
        ctl = new ControlClient(sfu.internalPort, secret, new TicketSigner(key), pod);
        long wait = System.nanoTime() + 30_000_000_000L;
        while (!ctl.ready()) {
            if (System.nanoTime() > wait) {
                sfu.close();
                throw new IOException("SFU did not start: see target/sfu-bench-sfu.log");
            }
            Thread.sleep(200);
        }
        renewer = Thread.ofPlatform().daemon().name("grant-renewer").start(this::renewGrants);
    }

    private void renewGrants() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                for (Map.Entry<String, List<String>> e : List.copyOf(meetings.entrySet())) {
                    List<String> pids;
                    synchronized (e.getValue()) { pids = List.copyOf(e.getValue()); }
                    if (!pids.isEmpty()) ctl.renew(e.getKey(), pids);
                }
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                System.err.println("grant renewal failed: " + e.getMessage());
            }
        }
    }

    @Override public String name() { return "parley"; }

    @Override public long pid() { return sfu.pid(); }

    @Override
    public void addMeeting(String meeting, int publishers) { meetings.put(meeting, new ArrayList<>()); }

    @Override
    public void publish(String meeting, Publisher p) throws Exception {
        ClientTransport t = new ClientTransport(p);
        p.transport = t;
        t.connect(ctl.createTransport(meeting, p.pid, "publish", p.offer(t)));
        participant(meeting, p.pid);
    }

    @Override
    public void subscribe(String meeting, Subscriber s, List<Publisher> feeds) throws Exception {
        // the SFU maps every track of the meeting onto the subscriber's slots (one audio + one video per feed)
        ClientTransport t = new ClientTransport(s);
        s.transport = t;
        t.connect(ctl.createTransport(meeting, s.pid, "subscribe", s.offer(t)));
        participant(meeting, s.pid);
    }

    private void participant(String meeting, String pid) {
        List<String> l = meetings.get(meeting);
        synchronized (l) { if (!l.contains(pid)) l.add(pid); }
    }

    /** Non-zero {@code parley_sfu_drops_total} counters, e.g. grant_subscribe when grant renewals were starved past 3 s. */
    @Override
    public String drops() {
        StringBuilder sb = new StringBuilder();
        try {
            for (String l : ctl.metrics().split("\n")) {
                if (!l.startsWith("parley_sfu_drops_total{reason=\"")) continue;
                String reason = l.substring(l.indexOf('"') + 1, l.lastIndexOf('"'));
                long n = (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
                if (n > 0) sb.append(sb.isEmpty() ? "" : ", ").append(reason).append(' ').append(n);
            }
        } catch (IOException | RuntimeException e) {
            return "metrics unavailable: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "-";
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }

    @Override
    public void close() {
        renewer.interrupt();
        sfu.close();
    }
}
