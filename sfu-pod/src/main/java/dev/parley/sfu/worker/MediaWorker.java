package dev.parley.sfu.worker;

import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.routing.Router;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One media worker (mediasoup's Worker): a {@link Router} with its own event loop thread, its own UDP port and
 * ICE-TCP listener, its own {@link SfuMetrics} and its own meetings. Workers share nothing on the packet path.
 */
public final class MediaWorker {
    private final int index;
    private final Router router;
    private final SfuMetrics metrics;

    MediaWorker(int index, Router router, SfuMetrics metrics) {
        this.index = index;
        this.router = router;
        this.metrics = metrics;
    }

    public int index() { return index; }
    public Router router() { return router; }
    public SfuMetrics metrics() { return metrics; }
    public int udpPort() { return router.endpoint().udpPort(); }
    public int tcpPort() { return router.endpoint().tcpPort(); }

    /** Transports on this worker (read off the worker's thread: a momentary value, enough for placement and load). */
    public int transports() { return router.transports(); }
    public int meetings() { return router.meetings().size(); }

    /** This worker's line in {@code GET /state}'s {@code workers} list. */
    Map<String, Object> summary() {
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("worker", index);
        w.put("udp_port", udpPort());
        w.put("tcp_port", tcpPort());
        w.put("meetings", meetings());
        w.put("transports", transports());
        w.put("packets_per_second", metrics.packetsPerSecond());
        w.put("ingress_bps", metrics.ingressBps());
        w.put("egress_bps", metrics.egressBps());
        return w;
    }

    @Override
    public String toString() { return "worker " + index + " (udp " + udpPort() + ", tcp " + tcpPort() + ")"; }
}
