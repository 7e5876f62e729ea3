package dev.parley.bench.bwe;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU cost of congestion control for 1000 subscribers at 20 feedbacks per second, in thread CPU time (so a
 * machine shared with other work distorts it less than wall-clock JMH figures): runs {@code seconds} of
 * simulated time for {@code subscribers} transports and divides the CPU time used by the simulated time.
 *
 * <p>{@code java -cp ... dev.parley.bench.bwe.BweCpuCost [subscribers=1000] [seconds=60]}
 */
public final class BweCpuCost {

    private BweCpuCost() {
    }

    public static void main(String[] args) {
        int subscribers = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        BweWorkload w = new BweWorkload(subscribers, 13, 8);
        w.warm(200); // 10 s of simulated time: JIT and past the initial probing
        int feedbacks = seconds * 20;
        long sink = 0;
        long cpu0 = mx.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        for (int round = 0; round < feedbacks; round++) {
            for (int i = 0; i < subscribers; i++) {
                sink += w.feedbackAndAllocate(i).allocatedBps();
            }
        }
        long cpu = mx.getCurrentThreadCpuTime() - cpu0;
        long wall = System.nanoTime() - wall0;
        double perOp = (double) cpu / ((long) feedbacks * subscribers);
        double coresPer1000 = perOp * 20 * 1000 / 1e9;
        System.out.printf("subscribers=%d simulated=%ds feedbacks=%d%n", subscribers, seconds,
                (long) feedbacks * subscribers);
        System.out.printf("cpu=%.2fs wall=%.2fs  cpu per feedback+allocation=%.0f ns%n", cpu / 1e9, wall / 1e9, perOp);
        System.out.printf("CPU per 1000 subscribers at 20 feedbacks/s: %.3f cores (%.1f %% of one core)%n",
                coresPer1000, coresPer1000 * 100);
        // the two other costs, in the same CPU-time terms
        int n = 200_000;
        long c0 = mx.getCurrentThreadCpuTime();
        for (int k = 0; k < n; k++) {
            sink += w.allocateFull(k % subscribers).allocatedBps();
        }
        long fullNs = (mx.getCurrentThreadCpuTime() - c0) / n;
        c0 = mx.getCurrentThreadCpuTime();
        for (int k = 0; k < 10 * n; k++) {
            sink += w.recordSend(k % subscribers);
        }
        long sendNs = (mx.getCurrentThreadCpuTime() - c0) / (10L * n);
        System.out.printf("full allocation (16 tracks): %d ns; per-packet send record: %d ns%n", fullNs, sendNs);
        System.out.println("(checksum " + sink + ")");
    }
}
