package dev.parley.turn.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.platform.etcd.RegistryWatcher;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.turn.peer.SfuEndpoint;
import io.etcd.jetcd.Client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * Follows the region's SFU entries ({@code /parley/v1/regions/{region}/sfu/}, platform-core's {@link SfuEntry}) and
 * hands their media endpoints to the peer policy after every change: list, then watch, relisting when the watch
 * breaks (platform-core's {@link RegistryWatcher}).
 */
final class SfuPeerWatcher implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final RegistryWatcher<SfuEntry> watcher;
    private final Consumer<Collection<SfuEndpoint>> sink;
    private volatile boolean listed;

    SfuPeerWatcher(Client client, String region, Consumer<Collection<SfuEndpoint>> sink) {
        this.sink = sink;
        this.watcher = RegistryWatcher.sfus(client, region, JSON);
        watcher.onChange(this::publish).start();
    }

    private void publish() {
        List<SfuEndpoint> out = new ArrayList<>();
        for (SfuEntry e : watcher.entries().values()) {
            // one endpoint per media worker of the SFU: each has its own ports
            for (SfuEntry.MediaPorts p : e.mediaPorts()) out.add(new SfuEndpoint(e.pod(), e.mediaAddress(), p.udpPort(), p.tcpPort()));
        }
        sink.accept(out);
        listed = true;
    }

    /** True once the SFU list was read (an empty region counts): until then no SFU port is open. */
    boolean listed() {
        return listed;
    }

    @Override
    public void close() {
        watcher.close();
    }
}
