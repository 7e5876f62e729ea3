package dev.parley.bench.bwe;

import dev.parley.sfu.allocation.AllocationResult;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of congestion control per subscriber: one operation is what one subscriber transport does per
 * transport-cc feedback (20 per second with browsers): record the packets sent since the last feedback,
 * process the feedback, tick, and (in {@link #feedbackAndAllocate}) call the allocator.
 *
 * <p>CPU per 1000 subscribers = ns/op × 20 feedbacks/s × 1000 / 1e9 cores. The subscribers are a pool
 * walked round-robin, so their state is not all in cache (as on a busy SFU). {@link BweCpuCost} measures the
 * same workload in thread CPU time, which a loaded machine distorts less. Run: see docs/bwe.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class BweAllocationBenchmark {

    /** Subscriber transports in the pool. */
    @Param({"512"})
    int subscribers;

    /** ~2.5 Mbps of 1200-byte packets at 20 feedbacks/s. */
    @Param({"13"})
    int packetsPerFeedback;

    /** Remote participants each subscriber receives (one audio + one camera track each). */
    @Param({"8"})
    int remoteParticipants;

    private BweWorkload w;

    @Setup
    public void setup() {
        w = new BweWorkload(subscribers, packetsPerFeedback, remoteParticipants);
        w.warm(100);
    }

    /** Send-side recording + one feedback + tick, for one subscriber. */
    @Benchmark
    public long feedback() {
        return w.feedback(w.next());
    }

    /** A full allocation run (as after a layout or subscription change), for one subscriber. */
    @Benchmark
    public AllocationResult allocateFull() {
        return w.allocateFull(w.next());
    }

    /** Feedback plus an allocator call on every feedback (reusing its decision while nothing changed). */
    @Benchmark
    public AllocationResult feedbackAndAllocate() {
        return w.feedbackAndAllocate(w.next());
    }

    /** One packet's send-side bookkeeping: what the forwarding hot path pays per packet. */
    @Benchmark
    public int recordSend() {
        return w.recordSend(w.next());
    }
}
