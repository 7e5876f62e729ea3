package dev.parley.turn.server;

import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.support.TurnFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Interop with a client we did not write: coturn's {@code turnutils_uclient} allocates with TURN REST credentials
 * ({@code -W secret}), binds channels and relays to {@code turnutils_peer} (an echo server) through Parley TURN, over
 * UDP and TCP. Skipped when the coturn utilities are not installed ({@code .ci/run} installs them).
 */
class UclientInteropIT {
    private static final Path UCLIENT = Path.of("/usr/bin/turnutils_uclient");
    private static final Path PEER = Path.of("/usr/bin/turnutils_peer");
    private static final Pattern LOST = Pattern.compile("Total lost packets (\\d+) \\(([0-9.]+)%\\)");
    private static final Pattern SENT = Pattern.compile("tot_send_msgs=(\\d+), tot_recv_msgs=(\\d+)");
    private static final Pattern RTT = Pattern.compile("Average round trip delay ([0-9.]+) ms");

    private final List<Process> processes = new ArrayList<>();
    private TurnServer server;
    private TurnMetrics metrics;
    private int peerPort;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(Files.isExecutable(UCLIENT) && Files.isExecutable(PEER), "coturn utilities not installed");
        metrics = new TurnMetrics();
        server = new TurnServer(TurnFixture.config(Map.of("PARLEY_TURN_SECRETS", "interop-secret",
                "PARLEY_TURN_MAX_ALLOCATIONS_PER_USER", "64")), metrics, System::currentTimeMillis).start();
        peerPort = TurnFixture.freePort();
        Process peer = new ProcessBuilder(PEER.toString(), "-L", "127.0.0.1", "-p", String.valueOf(peerPort))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        processes.add(peer);
        Thread.sleep(300);
    }

    @AfterEach
    void stop() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void udpChannelsZeroLoss() throws Exception {
        Result r = uclient(false);
        assertThat(r.sent).isEqualTo(8 * 200);
        assertThat(r.received).isEqualTo(r.sent);
        assertThat(r.lost).isZero();
        assertThat(metrics.packetsClientToPeer.sum()).isGreaterThanOrEqualTo(r.sent);
        assertThat(metrics.packetsPeerToClient.sum()).isGreaterThanOrEqualTo(r.received);
        // relayed over channels (ChannelData), not Send/Data indications
        assertThat(metrics.channelBinds.sum()).isGreaterThanOrEqualTo(8);
        assertThat(metrics.dataIndications.sum()).isLessThan(metrics.packetsPeerToClient.sum() / 10);
    }

    @Test
    void udpWithRtcpAllocationsUsesEvenPortReservations() throws Exception {
        // without -c uclient allocates RTP with EVEN-PORT (R=1) and RTCP with the RESERVATION-TOKEN it got
        Result r = uclient(false, false);
        assertThat(r.received).isEqualTo(r.sent).isPositive();
        assertThat(r.lost).isZero();
        assertThat(metrics.allocationsCreated.sum()).isGreaterThan(8); // RTCP allocations on reserved ports too
        assertThat(server.table().reservationCount()).isZero();
    }

    @Test
    void tcpChannelsZeroLoss() throws Exception {
        Result r = uclient(true);
        assertThat(r.sent).isEqualTo(8 * 200);
        assertThat(r.received).isEqualTo(r.sent);
        assertThat(r.lost).isZero();
        assertThat(metrics.packetsPeerToClient.sum()).isGreaterThanOrEqualTo(r.received);
        assertThat(metrics.channelBinds.sum()).isGreaterThanOrEqualTo(8);
    }

    record Result(long sent, long received, long lost, double rttMillis, String output) {
    }

    private Result uclient(boolean tcp) throws IOException, InterruptedException {
        return uclient(tcp, true);
    }

    private Result uclient(boolean tcp, boolean noRtcp) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(UCLIENT.toString()));
        if (tcp) {
            cmd.add("-t");
        }
        if (noRtcp) {
            cmd.add("-c");
        }
        // 8 clients x 200 messages of 160 bytes every 5 ms: ~1600 packets/s each way
        cmd.addAll(List.of("-W", "interop-secret", "-u", "interop", "-e", "127.0.0.1", "-r",
                String.valueOf(peerPort), "-p", String.valueOf(server.port()), "-m", "8", "-n", "200", "-l", "160",
                "-z", "5", "127.0.0.1"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        processes.add(p);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("uclient finished").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Matcher lost = LOST.matcher(out);
        Matcher rtt = RTT.matcher(out);
        Matcher sent = SENT.matcher(out);
        long s = -1;
        long rcv = -1;
        while (sent.find()) {
            s = Long.parseLong(sent.group(1));
            rcv = Long.parseLong(sent.group(2));
        }
        assertThat(lost.find()).as("uclient summary in:\n%s", out).isTrue();
        return new Result(s, rcv, Long.parseLong(lost.group(1)), rtt.find() ? Double.parseDouble(rtt.group(1)) : -1, out);
    }
}
