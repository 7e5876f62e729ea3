package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.media.SfuSelector;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Drain phase 3 on the owner side: every socket of ours whose transport generation lives on an SFU whose
 * registry entry turned DRAINING is told {@code new_generation_required} (reason {@code sfu_draining}).
 * The client then asks for a new generation, which {@link SfuSelector} places on an ACTIVE SFU; once the
 * new SFU holds its grant, {@code GrantService} releases the participant at the old one (DELETE) so the
 * draining SFU's transport count reaches zero. Sockets that do not move are asked again every
 * {@link #RESEND_NANOS}; nobody is asked while no ACTIVE SFU exists (they would have nowhere to go).
 */
@Context
@Singleton
public final class DrainMigrator {
    private static final Logger LOG = LoggerFactory.getLogger(DrainMigrator.class);
    static final long SCAN_MILLIS = 500;
    static final long RESEND_NANOS = TimeUnit.SECONDS.toNanos(10);
    public static final String MESSAGE = "new_generation_required";
    public static final String REASON = "sfu_draining";

    private final SessionRegistry sessions;
    private final SfuSelector selector;
    private final Counter asked;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sfu-drain-migrator");
        t.setDaemon(true);
        return t;
    });

    public DrainMigrator(SessionRegistry sessions, SfuSelector selector, MeterRegistry meters) {
        this.sessions = sessions;
        this.selector = selector;
        this.asked = Counter.builder("parley_sfu_drain_migration_requests")
                .description("new_generation_required messages sent to move participants off a draining SFU")
                .register(meters);
        timer.scheduleWithFixedDelay(this::scan, SCAN_MILLIS, SCAN_MILLIS, TimeUnit.MILLISECONDS);
    }

    void scan() {
        try {
            Set<String> draining = selector.drainingPods();
            if (draining.isEmpty() || !selector.hasActive()) {
                return;
            }
            long now = System.nanoTime();
            sessions.forEachJoined(c -> {
                String pod = c.sfuPod;
                long last = c.migrationAskedNanos;
                if (pod == null || !draining.contains(pod) || (last != 0 && now - last < RESEND_NANOS)) {
                    return;
                }
                c.migrationAskedNanos = now;
                asked.increment();
                ObjectNode msg = JsonBody.obj();
                msg.put("type", MESSAGE);
                msg.put("reason", REASON);
                msg.put("sfu_pod", pod);
                msg.put("transport_generation", c.generation);
                LOG.info("asking participant {} of meeting {} to leave draining SFU {}", c.participantId, c.meetingId, pod);
                c.tasks.execute(() -> sessions.sendRaw(c, msg));
            });
        } catch (RuntimeException e) {
            LOG.warn("drain migration scan failed: {}", e.toString());
        }
    }

    @PreDestroy
    void stop() {
        timer.shutdownNow();
    }
}
