package dev.parley.testsupport.etcd;

import dev.parley.testsupport.fs.Directories;
import dev.parley.testsupport.net.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * N real etcd members on free loopback ports, sharing one temp directory. Used by {@link EtcdExtension}
 * (one member) and {@link EtcdClusterExtension} (three), and usable directly from a main or a test.
 */
public final class EtcdCluster implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Path root;
    private final List<EtcdProcess> members;

    private EtcdCluster(Path root, List<EtcdProcess> members) {
        this.root = root;
        this.members = List.copyOf(members);
    }

    /** Starts {@code size} members and waits until every one reports healthy. */
    public static EtcdCluster start(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("cluster size must be >= 1");
        }
        Path binary = EtcdBinary.find();
        IllegalStateException last = null;
        // a "free" port can be taken between probe and bind: retry the whole cluster on fresh ports
        for (int attempt = 0; attempt < 3; attempt++) {
            EtcdCluster cluster = create(binary, size);
            try {
                cluster.members.forEach(EtcdProcess::start);
                cluster.awaitHealthy(START_TIMEOUT);
                return cluster;
            } catch (IllegalStateException e) {
                boolean portRace = cluster.members.stream().anyMatch(EtcdProcess::failedToBind);
                cluster.close();
                if (!portRace) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    private static EtcdCluster create(Path binary, int size) {
        Path root;
        try {
            root = Files.createTempDirectory("parley-etcd-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int[] clientPorts = new int[size];
        int[] peerPorts = new int[size];
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            clientPorts[i] = FreePorts.tcp();
            peerPorts[i] = FreePorts.tcp();
            peers.add("etcd" + i + "=http://127.0.0.1:" + peerPorts[i]);
        }
        String initialCluster = String.join(",", peers);
        // one token per cluster: members of different test clusters must never join each other
        String token = "parley-test-" + root.getFileName();
        List<EtcdProcess> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(new EtcdProcess(binary, root, "etcd" + i, clientPorts[i], peerPorts[i], initialCluster, token));
        }
        return new EtcdCluster(root, members);
    }

    /** Waits until every running member is healthy (has a leader). */
    public void awaitHealthy(Duration timeout) {
        for (EtcdProcess m : members) {
            if (m.isRunning()) {
                m.awaitHealthy(timeout);
            }
        }
    }

    public List<EtcdProcess> members() {
        return members;
    }

    public EtcdProcess member(int index) {
        return members.get(index);
    }

    /** Client URLs of all members (running or not), e.g. for jetcd {@code Client.builder().endpoints(...)}. */
    public List<String> endpoints() {
        return members.stream().map(EtcdProcess::clientUrl).toList();
    }

    /** Comma-separated client URLs, the format of {@code PARLEY_ETCD_ENDPOINTS}. */
    public String endpointsCsv() {
        return members.stream().map(EtcdProcess::clientUrl).collect(Collectors.joining(","));
    }

    public Path directory() {
        return root;
    }

    /** Kills every member and deletes the data directories. */
    @Override
    public void close() {
        members.forEach(EtcdProcess::close);
        Directories.deleteTree(root);
    }
}
