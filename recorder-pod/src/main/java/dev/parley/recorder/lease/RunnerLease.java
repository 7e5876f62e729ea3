package dev.parley.recorder.lease;

import dev.parley.recorder.manifest.GenerationFence;
import dev.parley.recorder.manifest.StaleGenerationException;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This generation's claim on the job: {@code /parley/v1/recordings/{job}/runner} (pod + generation, on our
 * process lease) and {@code .../highest_generation} (no lease: survives every runner, so a lower generation
 * can never come back after a higher one ran). Taken in one compare-and-swap transaction: a higher
 * generation takes over from a lower (live or dead) one; a lower or duplicate one is refused.
 */
public final class RunnerLease implements GenerationFence, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunnerLease.class);

    private final Client etcd;
    private final String jobId;
    private final long generation;
    private final String pod;
    private final long ttlSeconds;
    private final ByteSequence runnerKey;
    private final ByteSequence highestKey;
    private final AtomicBoolean lost = new AtomicBoolean();
    private volatile long leaseId;
    private CloseableClient keepAlive;

    public RunnerLease(Client etcd, String jobId, long generation, String pod, long ttlSeconds) {
        this.etcd = etcd;
        this.jobId = jobId;
        this.generation = generation;
        this.pod = pod;
        this.ttlSeconds = ttlSeconds;
        this.runnerKey = bytes(runnerKey(jobId));
        this.highestKey = bytes("/parley/v1/recordings/" + jobId + "/highest_generation");
    }

    public static String runnerKey(String jobId) {
        return "/parley/v1/recordings/" + jobId + "/runner";
    }

    /** Claims the job for this generation or throws when a higher (or the same, elsewhere) generation owns it. */
    public void acquire() throws StaleGenerationException {
        try {
            leaseId = grantWithRetry();
            keepAlive = etcd.getLeaseClient().keepAlive(leaseId, new StreamObserver<>() {
                @Override
                public void onNext(LeaseKeepAliveResponse r) {
                    if (r.getTTL() <= 0) {
                        markLost("lease expired");
                    }
                }

                @Override
                public void onError(Throwable t) {
                    markLost("keep-alive failed: " + t.getMessage());
                }

                @Override
                public void onCompleted() {
                    markLost("keep-alive stream closed");
                }
            });
            for (int attempt = 0; attempt < 20; attempt++) {
                GetResponse runner = etcd.getKVClient().get(runnerKey).get(5, TimeUnit.SECONDS);
                GetResponse highest = etcd.getKVClient().get(highestKey).get(5, TimeUnit.SECONDS);
                long runnerRev = runner.getKvs().isEmpty() ? 0 : runner.getKvs().get(0).getModRevision();
                long highestRev = highest.getKvs().isEmpty() ? 0 : highest.getKvs().get(0).getModRevision();
                long highestGen = highest.getKvs().isEmpty() ? 0
                        : Long.parseLong(highest.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8));
                if (highestGen > generation) {
                    throw new StaleGenerationException("job " + jobId + " already reached generation " + highestGen);
                }
                if (!runner.getKvs().isEmpty()) {
                    RunnerRecord holder = RunnerRecord.fromJson(runner.getKvs().get(0).getValue().getBytes());
                    if (holder.generation() > generation
                            || (holder.generation() == generation && !holder.pod().equals(pod))) {
                        throw new StaleGenerationException("job " + jobId + " is run by " + holder);
                    }
                    if (holder.generation() < generation) {
                        LOG.info("taking job {} over from {}", jobId, holder);
                    }
                }
                TxnResponse txn = etcd.getKVClient().txn()
                        .If(new Cmp(runnerKey, Cmp.Op.EQUAL, CmpTarget.modRevision(runnerRev)),
                                new Cmp(highestKey, Cmp.Op.EQUAL, CmpTarget.modRevision(highestRev)))
                        .Then(Op.put(runnerKey, ByteSequence.from(new RunnerRecord(pod, generation).toJson()),
                                        PutOption.builder().withLeaseId(leaseId).build()),
                                Op.put(highestKey, bytes(Long.toString(generation)), PutOption.DEFAULT))
                        .commit().get(5, TimeUnit.SECONDS);
                if (txn.isSucceeded()) {
                    LOG.info("generation {} of job {} holds {} (lease {}s)", generation, jobId, runnerKey(jobId),
                            ttlSeconds);
                    return;
                }
            }
            throw new StaleGenerationException("could not claim job " + jobId + ": contended");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("etcd unavailable while claiming job " + jobId, e);
        }
    }

    /** The first etcd call also connects; on a busy node that can take seconds: retry for up to 30 s. */
    private long grantWithRetry() throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return etcd.getLeaseClient().grant(ttlSeconds).get(10, TimeUnit.SECONDS).getID();
            } catch (ExecutionException | TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                LOG.warn("etcd not answering yet ({}), retrying", e.toString());
                Thread.sleep(500);
            }
        }
    }

    /** Linearizable check that the runner key still names this pod and generation. */
    @Override
    public void verifyCurrent() throws StaleGenerationException {
        if (lost.get()) {
            throw new StaleGenerationException("lease of generation " + generation + " was lost");
        }
        try {
            GetResponse r = etcd.getKVClient().get(runnerKey, GetOption.DEFAULT).get(5, TimeUnit.SECONDS);
            if (r.getKvs().isEmpty()) {
                throw new StaleGenerationException("runner key of job " + jobId + " is gone");
            }
            KeyValue kv = r.getKvs().get(0);
            RunnerRecord holder = RunnerRecord.fromJson(kv.getValue().getBytes());
            if (holder.generation() != generation || !holder.pod().equals(pod) || kv.getLease() != leaseId) {
                lost.set(true);
                throw new StaleGenerationException("job " + jobId + " is now run by " + holder);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            // cannot prove we are current: refuse to write (the caller retries)
            throw new IllegalStateException("etcd unavailable: cannot verify generation " + generation, e);
        }
    }

    public boolean isLost() {
        return lost.get();
    }

    public long generation() {
        return generation;
    }

    private void markLost(String why) {
        if (lost.compareAndSet(false, true)) {
            LOG.warn("generation {} of job {}: {}", generation, jobId, why);
        }
    }

    /** Gives the job up (deletes the runner key via the lease); highest_generation stays. */
    @Override
    public void close() {
        if (keepAlive != null) {
            keepAlive.close();
        }
        if (leaseId != 0) {
            try {
                etcd.getLeaseClient().revoke(leaseId).get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("could not revoke lease of job {}: {}", jobId, e.toString());
            }
        }
        lost.set(true);
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
