package dev.parley.sfu.worker;

import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.metrics.ProcessMetrics;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.routing.Router;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The process's media workers and which meeting lives on which ({@link Placement}). Worker {@code i} binds
 * {@code udpPort + i} / {@code tcpPort + i} (each OS-chosen when the base is 0). The internal API asks
 * {@link #workerFor} before every meeting-scoped call and then enters that worker's Router alone.
 */
public final class WorkerPool implements AutoCloseable {
    private final List<MediaWorker> workers;
    private final Placement placement;
    private final ProcessMetrics metrics;

    /** @param setup applied to each Router before it binds (REMB cap, consent timeout, loopback-only...) */
    public WorkerPool(int count, EventPublisher events, String bindAddress, String announcedAddress, int udpPort, int tcpPort,
                      Consumer<Router> setup) throws InterruptedException {
        List<MediaWorker> ws = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                SfuMetrics m = new SfuMetrics();
                Router r = new Router(m, events, "sfu-w" + i);
                ws.add(new MediaWorker(i, r, m));      // before start: a failed bind still closes this loop
                setup.accept(r);
                r.start(bindAddress, announcedAddress, udpPort == 0 ? 0 : udpPort + i, tcpPort == 0 ? 0 : tcpPort + i);
            }
        } catch (InterruptedException | RuntimeException e) {
            for (MediaWorker w : ws) w.router().close();
            throw e;
        }
        workers = List.copyOf(ws);
        placement = new Placement(workers);
        metrics = new ProcessMetrics(workers.stream().map(MediaWorker::metrics).toList());
    }

    public List<MediaWorker> workers() { return workers; }
    public MediaWorker worker(int index) { return workers.get(index); }
    public ProcessMetrics metrics() { return metrics; }

    /** The worker {@code meetingId} lives on; a meeting seen for the first time goes to the least loaded worker. */
    public MediaWorker workerFor(String meetingId) { return placement.workerFor(meetingId); }

    /** The worker {@code meetingId} lives on, if it was placed (never places it). */
    public Optional<MediaWorker> find(String meetingId) { return placement.find(meetingId); }

    public int transports() {
        int n = 0;
        for (MediaWorker w : workers) n += w.transports();
        return n;
    }

    public int meetings() {
        int n = 0;
        for (MediaWorker w : workers) n += w.meetings();
        return n;
    }

    /**
     * {@code GET /state} over all workers (each snapshot taken on its worker's thread): every meeting with the
     * worker it lives on, the summed counts, and one line per worker (ports, meetings, transports, rates).
     */
    public Map<String, Object> state() {
        List<Object> meetings = new ArrayList<>();
        List<Object> perWorker = new ArrayList<>();
        long transports = 0, probes = 0;
        for (MediaWorker w : workers) {
            Router r = w.router();
            Map<String, Object> s = r.call(r::state);
            for (Object m : (List<?>) s.get("meetings")) {
                @SuppressWarnings("unchecked") Map<String, Object> mm = (Map<String, Object>) m;
                mm.put("worker", w.index());
                meetings.add(mm);
            }
            transports += ((Number) s.get("transports")).longValue();
            probes += ((Number) s.get("probe_packets_sent")).longValue();
            perWorker.add(w.summary());
        }
        Map<String, Object> r = new java.util.LinkedHashMap<>();
        r.put("meetings", meetings);
        r.put("transports", transports);
        r.put("probe_packets_sent", probes);
        r.put("workers", perWorker);
        return r;
    }

    @Override
    public void close() {
        for (MediaWorker w : workers) w.router().close();
    }
}
