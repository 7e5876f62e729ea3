package dev.parley.sfu;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketVerifier;
import dev.parley.sfu.api.InternalApi;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.metrics.ProcessMetrics;
import dev.parley.sfu.registry.SfuRegistration;
import dev.parley.sfu.worker.MediaWorker;
import dev.parley.sfu.worker.WorkerPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires the SFU: N media workers (each a router on its own ports), internal API, and the etcd registration. */
public final class SfuServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SfuServer.class);
    /** Forwarded packets/s one worker (one core) is taken to carry at stress 1.0 (bench/README-sfu.md). */
    static final double PACKETS_PER_SECOND_PER_WORKER = 100_000.0;
    private final SfuConfig config;
    private final WorkerPool workers;
    /** Set once in the constructor, before the registration's first put reads it. */
    private InternalApi api;
    private SfuRegistration registration;

    public SfuServer(SfuConfig config) throws Exception {
        this.config = config;
        InternalAuth auth = new InternalAuth(config.internalSecret());
        EventPublisher events = new EventPublisher(new ObjectMapper(), auth, config.podName());
        workers = new WorkerPool(config.workers(), events, config.bindAddress(), config.announcedAddress(), config.udpPort(),
                config.tcpPort(), r -> {
                    r.setRembBitrate(config.rembBitrateBps());
                    r.setLoopbackPeersOnly(config.loopbackPeersOnly());
                    r.setConsentTimeoutNanos(config.consentTimeoutMs() * 1_000_000L);
                });
        try {
            TicketVerifier tickets = new TicketVerifier(TicketKeys.parse(config.ticketPublicJwk()));
            final SfuRegistration[] reg = new SfuRegistration[1];
            api = new InternalApi(config.bindAddress(), config.internalPort(), workers, auth, tickets, config.podName(),
                    config.testHooks(), () -> reg[0] == null ? config.etcdEndpoints().isBlank() : reg[0].confirmed());
            // the first registry put reads entry(), which needs the API (its port, drain state)
            if (!config.etcdEndpoints().isBlank()) {
                reg[0] = new SfuRegistration(config.etcdEndpoints(), config.leaseTtlSeconds(), config.region(), config.podName(), this::entry);
            }
            registration = reg[0];
        } catch (Exception | Error e) {
            if (api != null) api.close();
            workers.close();
            throw e;
        }
        LOG.info("SFU up: {} ({} media workers: {}; internal {})", config.describe(), workers.workers().size(),
                workers.workers().stream().map(MediaWorker::toString).toList(), api.port());
    }

    /**
     * The registry entry: worker 0's ports in the old fields and every worker's in {@code media_workers} (TURN opens
     * all of them), and the load summed over all workers. Stress is the mean worker's: new meetings go to the least
     * loaded worker, so the process is full when all of them are.
     */
    SfuEntry entry() {
        ProcessMetrics m = workers.metrics();
        int n = workers.workers().size();
        return new SfuEntry(config.podName(), config.region(), api.draining() ? SfuEntry.DRAINING : SfuEntry.ACTIVE,
                "http://" + config.bindAddress() + ":" + api.port(), config.announcedAddress(), udpPort(), tcpPort(),
                new SfuEntry.SfuLoad(m.egressBps(), m.ingressBps(), m.packetsPerSecond(), workers.transports(), 0,
                        workers.meetings(), Math.min(10.0, m.packetsPerSecond() / (PACKETS_PER_SECOND_PER_WORKER * n))),
                System.currentTimeMillis(), workers.workers().stream().map(w -> new SfuEntry.MediaPorts(w.udpPort(), w.tcpPort())).toList());
    }

    /** Worker 0's UDP port (the base of the worker range). */
    public int udpPort() { return workers.worker(0).udpPort(); }
    /** Worker 0's ICE-TCP port (the base of the worker range). */
    public int tcpPort() { return workers.worker(0).tcpPort(); }
    public int internalPort() { return api.port(); }
    public ProcessMetrics metrics() { return workers.metrics(); }
    public WorkerPool workers() { return workers; }

    @Override
    public void close() {
        if (registration != null) registration.close();
        if (!halted) {
            api.close();
            workers.close();
        }
    }

    private volatile boolean halted;

    /**
     * Tests of failure detection: stops serving (internal API, media sockets) but leaves the registry entry, as a
     * killed process looks to the others until its lease runs out (here until {@link #close}).
     */
    public void halt() {
        halted = true;
        api.close();
        workers.close();
    }

    /**
     * Tests of failure detection: the internal API (health probe included) stops answering while media goes on and the
     * registry entry lives, as a live but starved process looks to the controller; {@code false} answers again.
     */
    public void pauseApi(boolean paused) {
        api.pause(paused);
    }
}
