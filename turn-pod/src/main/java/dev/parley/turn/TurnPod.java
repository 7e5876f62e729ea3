package dev.parley.turn;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.turn.admin.DrainController;
import dev.parley.turn.admin.InternalHttpServer;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.registry.EtcdRegistry;
import dev.parley.turn.server.TurnServer;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** Composition root of a TURN pod: relay server, internal HTTP port, etcd registry and drain. */
public final class TurnPod implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final TurnConfig config;
    private final TurnMetrics metrics = new TurnMetrics();
    private final TurnServer server;
    private final DrainController drain;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private InternalHttpServer http;
    private EtcdRegistry registry;
    private long lastBytes;
    private long lastBytesNanos = System.nanoTime();
    private volatile long relayedBps;

    public TurnPod(TurnConfig config, LongSupplier clock) {
        this.config = config;
        this.server = new TurnServer(config, metrics, clock);
        this.drain = new DrainController(server, this::close);
    }

    public TurnPod start() throws InterruptedException {
        server.start();
        if (!config.etcdEndpoints().isEmpty()) {
            registry = new EtcdRegistry(config.etcdEndpoints(), config.region(), config.podName(),
                    config.leaseTtlSeconds(), this::registryValue,
                    Duration.ofMillis(Math.max(1000, config.leaseTtlSeconds() * 1000 / 3)),
                    server.peerPolicy()::registered);
        }
        http = new InternalHttpServer(metrics, this::ready, () -> registryValue().toString(), drainHook(), config.drainGrace(),
                config.internalSecret()).start(new InetSocketAddress(config.bindAddress(), config.internalPort()));
        return this;
    }

    private DrainController drainHook() {
        return drain;
    }

    /** Starts draining and republishes the registry entry with state DRAINING at once. */
    public void drain(Duration grace) {
        drain.drain(grace);
        if (registry != null) {
            registry.publishNow();
        }
    }

    public boolean ready() {
        return !server.draining() && (registry == null || (registry.confirmed() && registry.sfusListed()));
    }

    /**
     * The registry value: the fields of platform-core's {@code TurnEntry} (pod, region, state, internal_url, urls,
     * allocations, stress, updated_at_ms — what the controller reads to hand out TURN URLs) plus address, ports and
     * relayed_bps for the operator's TURN autoscaler.
     */
    public synchronized ObjectNode registryValue() {
        long now = System.nanoTime();
        long bytes = metrics.bytesClientToPeer.sum() + metrics.bytesPeerToClient.sum();
        if (now - lastBytesNanos > 500_000_000L) {
            relayedBps = (bytes - lastBytes) * 8 * 1_000_000_000L / (now - lastBytesNanos);
            lastBytes = bytes;
            lastBytesNanos = now;
        }
        String host = hostLiteral(config.externalAddress());
        int allocations = server.table().size();
        ObjectNode n = JSON.createObjectNode();
        n.put("pod", config.podName());
        n.put("region", config.region());
        n.put("state", server.draining() ? "DRAINING" : "ACTIVE");
        // the operator posts /drain here: a wildcard bind is reached on the pod's own (relay) address
        java.net.InetAddress internalHost = config.bindAddress().isAnyLocalAddress() ? config.relayAddress() : config.bindAddress();
        n.put("internal_url", "http://" + hostLiteral(internalHost) + ":" + (http == null ? config.internalPort() : http.port()));
        ArrayNode urls = n.putArray("urls");
        urls.add("turn:" + host + ":" + server.port() + "?transport=udp");
        urls.add("turn:" + host + ":" + server.port() + "?transport=tcp");
        if (server.tlsPort() > 0) {
            urls.add("turns:" + host + ":" + server.tlsPort() + "?transport=tcp");
        }
        n.put("allocations", allocations);
        n.put("stress", Math.min(1.0, allocations / (double) Math.max(1, config.maxAllocations())));
        n.put("updated_at_ms", System.currentTimeMillis());
        n.put("address", config.externalAddress().getHostAddress());
        ObjectNode ports = n.putObject("ports");
        ports.put("udp", server.port());
        ports.put("tcp", server.port());
        if (server.tlsPort() > 0) {
            ports.put("tls", server.tlsPort());
        }
        ports.put("internal", http == null ? config.internalPort() : http.port());
        n.put("relayed_bps", relayedBps);
        return n;
    }

    private static String hostLiteral(java.net.InetAddress a) {
        String h = a.getHostAddress();
        return a instanceof java.net.Inet6Address ? "[" + h + "]" : h;
    }

    public TurnServer server() {
        return server;
    }

    public int internalPort() {
        return http.port();
    }

    public EtcdRegistry registry() {
        return registry;
    }

    public boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException {
        return stopped.await(timeout, unit);
    }

    @Override
    public void close() {
        if (stopped.getCount() == 0) {
            return;
        }
        server.stop();
        if (registry != null) {
            registry.close();
        }
        if (http != null) {
            http.stop();
        }
        stopped.countDown();
    }
}
