package dev.parley.e2e.chaos;

import dev.parley.testsupport.etcd.EtcdProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** The faults of issue "Faults, floods and bad input", each a small {@link Fault}. */
final class Faults {
    private Faults() {
    }

    /** SIGKILL of the SFU carrying the most meetings (the browsers' SFU on a tie). */
    static final class SfuKill implements Fault {
        private Pod victim;

        public String name() { return "sfu-kill"; }
        public String description() { return "SFU kill -9 (the SFU carrying most meetings)"; }
        public long durationMs() { return 0; }

        public void inject(ChaosRun run) throws Exception {
            Observation o = run.observer.latest();
            Map<String, Integer> load = new HashMap<>();
            for (Observation.SfuView s : o.sfus()) {
                int n = 0;
                for (Observation.SfuMeeting m : s.meetings().values()) {
                    if (!m.participants().isEmpty()) n += m.meetingId().equals(run.browsers.meetingId) ? 3 : 2;
                }
                load.put(s.pod(), n);
            }
            victim = run.platform.sfus.stream().filter(Pod::alive)
                .max(Comparator.comparingInt(s -> load.getOrDefault(s.name, 0))).orElseThrow();
            ChaosPlatform.log("killing %s (weight %d: 2 per meeting, 3 for the browsers')", victim.name, load.getOrDefault(victim.name, 0));
            victim.kill();
        }

        public void restore(ChaosRun run) throws Exception {
            if (run.full && victim != null) victim.start(Duration.ofSeconds(90));
        }
    }

    /** SIGKILL of the controller owning the browsers' meeting. */
    static final class OwnerControllerKill implements Fault {
        private Pod victim;

        public String name() { return "owner-controller-kill"; }
        public String description() { return "owner controller kill -9 (owner of the browsers' meeting)"; }
        public long durationMs() { return 0; }

        public void inject(ChaosRun run) throws Exception {
            String owner = run.observer.ownerOf(run.browsers.meetingId);
            victim = owner == null ? run.platform.controllers.get(0) : run.platform.controllerNamed(owner);
            ChaosPlatform.log("killing %s (owner of the browsers' meeting: %s)", victim.name, owner);
            victim.kill();
        }

        public void restore(ChaosRun run) throws Exception {
            if (run.full && victim != null) victim.start(Duration.ofSeconds(120));
        }
    }

    /** SIGKILL of the etcd member that is raft leader; restarted after the measurement. */
    static final class EtcdLeaderKill implements Fault {
        private EtcdProcess leader;

        public String name() { return "etcd-leader-kill"; }
        public String description() { return "etcd leader kill -9 (restarted after media is back)"; }
        public long durationMs() { return 0; }

        public void inject(ChaosRun run) {
            for (EtcdProcess m : run.platform.etcd.members()) {
                EtcdProcess.MemberStatus s = m.status();
                if (s != null && s.isLeader()) leader = m;
            }
            if (leader == null) leader = run.platform.etcd.member(0);
            ChaosPlatform.log("killing etcd leader %s", leader.name());
            leader.kill();
        }

        public void restore(ChaosRun run) {
            if (leader != null && !leader.isRunning()) {
                leader.start();
                leader.awaitHealthy(Duration.ofSeconds(30));
            }
        }
    }

    /** Every etcd member stopped (SIGKILL) for {@code ms}, then started again on the same data. */
    static final class EtcdDown implements Fault {
        private final long ms;

        EtcdDown(long ms) { this.ms = ms; }

        public String name() { return "etcd-down-" + ms / 1000 + "s"; }
        public String description() { return "etcd down " + ms / 1000 + " s (all three members killed, then restarted)"; }
        public long durationMs() { return ms; }

        public void inject(ChaosRun run) {
            for (EtcdProcess m : run.platform.etcd.members()) m.kill();
        }

        public void heal(ChaosRun run) {
            for (EtcdProcess m : run.platform.etcd.members()) if (!m.isRunning()) m.start();
            run.platform.etcd.awaitHealthy(Duration.ofSeconds(30));
        }
    }

    /**
     * The owner of the browsers' meeting cut off from etcd (its relays to all three members reset and refusing) for
     * {@code ms}, while it still reaches PostgreSQL, the SFUs and its clients: a partition, without network
     * namespaces (every pod binds loopback; see bench/chaos/README.md).
     */
    static final class ControllerEtcdPartition implements Fault {
        private final long ms;
        private String pod;

        ControllerEtcdPartition(long ms) { this.ms = ms; }

        public String name() { return "controller-etcd-partition-" + ms / 1000 + "s"; }
        public String description() { return "owner controller cut off from etcd " + ms / 1000 + " s (user-space partition)"; }
        public long durationMs() { return ms; }

        public void inject(ChaosRun run) {
            pod = run.observer.ownerOf(run.browsers.meetingId);
            if (pod == null || !run.platform.controllerNamed(pod).alive()) {
                pod = run.platform.controllers.stream().filter(Pod::alive).findFirst().orElseThrow().name;
            }
            ChaosPlatform.log("cutting %s off from etcd", pod);
            run.platform.etcdLinks.get(pod).forEach(TcpFrontDoor::cut);
        }

        public void heal(ChaosRun run) {
            run.platform.etcdLinks.get(pod).forEach(TcpFrontDoor::mend);
        }
    }

    /** PostgreSQL fast shutdown and start again at once (a failover to a standby, without the standby). */
    static final class PostgresRestart implements Fault {
        public String name() { return "postgres-restart"; }
        public String description() { return "PostgreSQL restart (fast shutdown, start again at once)"; }
        public long durationMs() { return 0; }

        public void inject(ChaosRun run) throws Exception {
            run.platform.postgres.stop();
            run.platform.postgres.start();
        }
    }

    /** PostgreSQL down for {@code ms}. */
    static final class PostgresOutage implements Fault {
        private final long ms;

        PostgresOutage(long ms) { this.ms = ms; }

        public String name() { return "postgres-outage-" + ms / 1000 + "s"; }
        public String description() { return "PostgreSQL outage " + ms / 1000 + " s (stopped, then started)"; }
        public long durationMs() { return ms; }

        public void inject(ChaosRun run) throws Exception { run.platform.postgres.stop(); }

        public void heal(ChaosRun run) throws Exception { run.platform.postgres.start(); }
    }

    /** PostgreSQL hung (SIGSTOP on the postmaster and every backend) for {@code ms}. */
    static final class PostgresHang implements Fault {
        private final long ms;

        PostgresHang(long ms) { this.ms = ms; }

        public String name() { return "postgres-sigstop-" + ms / 1000 + "s"; }
        public String description() { return "PostgreSQL SIGSTOP " + ms / 1000 + " s (hangs with sockets open)"; }
        public long durationMs() { return ms; }

        public void inject(ChaosRun run) throws Exception { run.platform.postgres.pause(); }

        public void heal(ChaosRun run) throws Exception { run.platform.postgres.resume(); }
    }

    /** s3proxy stopped for {@code ms} while a recording runs (the run records around it). */
    static final class S3Outage implements Fault {
        private final long ms;

        S3Outage(long ms) { this.ms = ms; }

        public String name() { return "s3-outage-" + ms / 1000 + "s"; }
        public String description() { return "s3proxy outage " + ms / 1000 + " s during a recording"; }
        public long durationMs() { return ms; }

        public void inject(ChaosRun run) { run.platform.s3.stop(); }

        public void heal(ChaosRun run) { run.platform.s3.restart(); }
    }

    /** Loss, delay and (through jitter) reordering on every media path, both ways, at the UDP proxies. */
    static final class MediaImpairment implements Fault {
        private final double loss;
        private final int delay, jitter;
        private final long ms;

        MediaImpairment(double loss, int delay, int jitter, long ms) {
            this.loss = loss;
            this.delay = delay;
            this.jitter = jitter;
            this.ms = ms;
        }

        public String name() { return "media-loss-delay"; }
        public String description() {
            return "media path " + (int) loss + " % loss + " + delay + " ms delay + " + jitter + " ms jitter (reordering), " + ms / 1000 + " s";
        }
        public long durationMs() { return ms; }

        public void inject(ChaosRun run) {
            for (UdpImpairmentProxy p : run.platform.proxies.values()) p.impair(loss, delay, jitter);
        }

        public void heal(ChaosRun run) {
            long dropped = 0, reordered = 0;
            for (UdpImpairmentProxy p : run.platform.proxies.values()) {
                p.clear();
                dropped += p.dropped.get();
                reordered += p.reordered.get();
            }
            ChaosPlatform.log("proxies so far: %d datagrams dropped, %d reordered", dropped, reordered);
        }
    }

    /** For {@code ms}: every second each signaling socket (load client and browser guest) is dropped with 10 % chance. */
    static final class SignalingDrops implements Fault {
        private final long ms;
        private volatile boolean on;
        int dropped;

        SignalingDrops(long ms) { this.ms = ms; }

        public String name() { return "signaling-drop-10pct"; }
        public String description() { return "10 % of signaling sockets dropped each second for " + ms / 1000 + " s"; }
        public long durationMs() { return ms; }

        public void inject(ChaosRun run) {
            on = true;
            Thread.ofVirtual().start(() -> {
                while (on) {
                    List<LoadParticipant> all = new ArrayList<>(run.fleet.all());
                    for (LoadParticipant p : all) {
                        if (!p.removed && ThreadLocalRandom.current().nextInt(10) == 0) {
                            p.dropSocket();
                            dropped++;
                        }
                    }
                    if (ThreadLocalRandom.current().nextInt(10) == 0) {
                        try {
                            run.browsers.dropGuestSocket();
                            dropped++;
                        } catch (Exception ignored) {
                            // the page is busy; next second
                        }
                    }
                    Api.sleep(1000);
                }
            });
        }

        public void heal(ChaosRun run) {
            on = false;
            ChaosPlatform.log("%d signaling sockets dropped", dropped);
        }
    }

    /**
     * Several faults at once (issue 20: "one at a time and combined"): injected in order, healed together when the
     * longest has run its time (a kill's heal does nothing), restored in reverse order.
     */
    static final class Combined implements Fault {
        private final List<Fault> parts;

        Combined(Fault... parts) { this.parts = List.of(parts); }

        public String name() { return String.join("+", parts.stream().map(Fault::name).toList()); }
        public String description() { return String.join(", together with ", parts.stream().map(Fault::description).toList()); }
        public long durationMs() { return parts.stream().mapToLong(Fault::durationMs).max().orElse(0); }

        public void inject(ChaosRun run) throws Exception {
            for (Fault f : parts) f.inject(run);
        }

        public void heal(ChaosRun run) throws Exception {
            for (Fault f : parts) f.heal(run);
        }

        public void restore(ChaosRun run) throws Exception {
            for (Fault f : parts.reversed()) f.restore(run);
        }
    }
}
