package dev.parley.sfu;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.internal.InternalAuth;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketVerifier;
import dev.parley.sfu.api.InternalApi;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.registry.SfuRegistration;
import dev.parley.sfu.routing.Router;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires the SFU: media router on the shared UDP/TCP ports, internal API, and the etcd registration. */
public final class SfuServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SfuServer.class);
    private final SfuConfig config;
    private final SfuMetrics metrics = new SfuMetrics();
    private final Router router;
    private final InternalApi api;
    private final SfuRegistration registration;

    public SfuServer(SfuConfig config) throws Exception {
        this.config = config;
        InternalAuth auth = new InternalAuth(config.internalSecret());
        router = new Router(metrics, new EventPublisher(new ObjectMapper(), auth, config.podName()));
        router.setRembBitrate(config.rembBitrateBps());
        router.setLoopbackPeersOnly(config.loopbackPeersOnly());
        router.setConsentTimeoutNanos(config.consentTimeoutMs() * 1_000_000L);
        router.start(config.bindAddress(), config.announcedAddress(), config.udpPort(), config.tcpPort());
        TicketVerifier tickets = new TicketVerifier(TicketKeys.parse(config.ticketPublicJwk()));
        final SfuRegistration[] reg = new SfuRegistration[1];
        api = new InternalApi(config.bindAddress(), config.internalPort(), router, auth, tickets, config.podName(), metrics,
                config.testHooks(), () -> reg[0] == null ? config.etcdEndpoints().isBlank() : reg[0].confirmed());
        if (!config.etcdEndpoints().isBlank()) {
            reg[0] = new SfuRegistration(config.etcdEndpoints(), config.leaseTtlSeconds(), config.region(), config.podName(), this::entry);
        }
        registration = reg[0];
        LOG.info("SFU up: {} (udp {}, tcp {}, internal {})", config.describe(), router.endpoint().udpPort(),
                router.endpoint().tcpPort(), api.port());
    }

    private SfuEntry entry() {
        return new SfuEntry(config.podName(), config.region(), api.draining() ? SfuEntry.DRAINING : SfuEntry.ACTIVE,
                "http://" + config.bindAddress() + ":" + api.port(), config.announcedAddress(), router.endpoint().udpPort(),
                router.endpoint().tcpPort(), new SfuEntry.SfuLoad(metrics.egressBps(), metrics.ingressBps(),
                metrics.packetsPerSecond(), router.transports(), 0, router.meetings().size(),
                Math.min(10.0, metrics.packetsPerSecond() / 100_000.0)), System.currentTimeMillis());
    }

    public int udpPort() { return router.endpoint().udpPort(); }
    public int tcpPort() { return router.endpoint().tcpPort(); }
    public int internalPort() { return api.port(); }
    public SfuMetrics metrics() { return metrics; }

    @Override
    public void close() {
        if (registration != null) registration.close();
        api.close();
        router.close();
    }
}
