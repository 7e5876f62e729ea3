package dev.parley.controller.outbox;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.controller.ownership.LeaderKey;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Publishes committed outbox events to the configured webhooks: at least once (consumers deduplicate by
 * {@code event_id}), in commit order per meeting (a failed event holds back the later events of its
 * meeting), HMAC-SHA256 signed, retried with exponential backoff, dead-lettered after
 * {@code PARLEY_WEBHOOK_MAX_ATTEMPTS} (visible in the table, the internal API and a metric).
 * One relay per cluster: the leader holds {@code /parley/v1/outbox-relay/leader} under its lease. The leader
 * also runs the cross-pod fan-out of committed control events to the signaling sockets of every controller pod
 * ({@link RelayLeadership}, the control fan-out, on its own loop so a slow webhook does not hold it up).
 */
@Context
@Singleton
public final class OutboxRelay {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
    static final String LEADER_KEY = EtcdKeys.ROOT + "/outbox-relay/leader";

    private final Db db;
    private final ParleyConfig cfg;
    private final LeaderKey leaderKey;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "outbox-relay");
        t.setDaemon(true);
        return t;
    });
    private final Counter delivered;
    private final Counter deadLettered;
    private final int maxAttempts;

    private final OutboxRepository outboxRows;

    private final RelayLeadership fanout;

    public OutboxRelay(Db db, OutboxRepository outboxRows, ParleyConfig cfg, Client etcd, ProcessLease lease,
                       MeterRegistry meters, RelayLeadership fanout) {
        this.fanout = fanout;
        this.db = db;
        this.outboxRows = outboxRows;
        this.cfg = cfg;
        this.leaderKey = new LeaderKey(etcd, lease, LEADER_KEY, cfg.podName());
        this.maxAttempts = cfg.webhookMaxAttempts();
        this.delivered = Counter.builder("parley_outbox_events_published").register(meters);
        this.deadLettered = Counter.builder("parley_outbox_events_dead_lettered").register(meters);
        exec.scheduleWithFixedDelay(this::round, 200, 200, TimeUnit.MILLISECONDS);
    }

    private boolean leader() {
        return leaderKey.held();
    }

    record Row(UUID eventId, UUID meetingId, String type, long version, String payload, String createdAt, int attempts) {
    }

    void round() {
        try {
            boolean leading = leader();
            // the leader also fans committed control events out to every controller pod's sockets
            fanout.leading(leading);
            if (!leading) {
                return;
            }
            List<Row> rows = db.tx(c -> {
                List<Row> out = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement("SELECT event_id, meeting_id, event_type, aggregate_version, "
                        + "payload::text, created_at, attempts, next_attempt_at <= now() FROM outbox_events "
                        + "WHERE published_at IS NULL AND dead_lettered_at IS NULL ORDER BY position LIMIT 500")) {
                    try (ResultSet rs = ps.executeQuery()) {
                        Set<UUID> blocked = new HashSet<>();
                        while (rs.next()) {
                            UUID m = rs.getObject(2, UUID.class);
                            if (blocked.contains(m)) {
                                continue;
                            }
                            if (!rs.getBoolean(8)) {
                                blocked.add(m); // head of this meeting waits for its backoff: keep order
                                continue;
                            }
                            out.add(new Row(rs.getObject(1, UUID.class), m, rs.getString(3), rs.getLong(4),
                                    rs.getString(5), rs.getTimestamp(6).toInstant().toString(), rs.getInt(7)));
                        }
                    }
                }
                return out;
            });
            Set<UUID> failedMeetings = new HashSet<>();
            // marked in one statement after the round: a crash before it only means redelivery (at least once)
            List<UUID> published = new ArrayList<>();
            for (Row r : rows) {
                if (failedMeetings.contains(r.meetingId())) {
                    continue;
                }
                String error = deliver(r);
                if (error == null) {
                    published.add(r.eventId());
                } else if (r.attempts() + 1 >= maxAttempts) {
                    if (outboxRows.markDeadLettered(r.eventId(), clip(error)) == 1) {
                        LOG.warn("outbox event {} dead-lettered after {} attempts: {}", r.eventId(), r.attempts() + 1, error);
                        deadLettered.increment();
                    }
                } else {
                    failedMeetings.add(r.meetingId());
                    outboxRows.scheduleRetry(r.eventId(), clip(error), Math.min(30_000, 200L << Math.min(r.attempts(), 10)));
                }
            }
            if (!published.isEmpty()) {
                delivered.increment(outboxRows.markAllPublished(published));
            }
        } catch (RuntimeException e) {
            LOG.warn("outbox relay round failed: {}", e.toString());
        }
    }

    private static String clip(String error) {
        return error.length() > 500 ? error.substring(0, 500) : error;
    }

    /** Delivers to every webhook; null on success, else the error. Without webhooks there is nothing to do. */
    private String deliver(Row r) {
        if (cfg.webhookUrls().isEmpty()) {
            return null;
        }
        ObjectNode body = JsonBody.obj();
        body.put("event_id", r.eventId().toString());
        body.put("meeting_id", r.meetingId().toString());
        body.put("event_type", r.type());
        body.put("aggregate_version", r.version());
        body.put("created_at", r.createdAt());
        try {
            body.set("payload", JsonBody.JSON.readTree(r.payload()));
        } catch (Exception e) {
            return "unreadable payload";
        }
        String text = body.toString();
        long ts = System.currentTimeMillis() / 1000;
        String sig = "t=" + ts + ",v1=" + sign(ts + "." + text);
        for (String url : cfg.webhookUrls()) {
            try {
                HttpResponse<Void> resp = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3))
                        .header("Content-Type", "application/json")
                        .header("X-Parley-Event-Id", r.eventId().toString())
                        .header("X-Parley-Event-Type", r.type())
                        .header("X-Parley-Signature", sig)
                        .POST(HttpRequest.BodyPublishers.ofString(text)).build(), HttpResponse.BodyHandlers.discarding());
                if (resp.statusCode() / 100 != 2) {
                    return "HTTP " + resp.statusCode() + " from " + url;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            } catch (Exception e) {
                return e.getClass().getSimpleName() + " from " + url;
            }
        }
        return null;
    }

    /** hex(HMAC-SHA256(secret, t + "." + body)); receivers recompute it to authenticate the sender. */
    String sign(String data) {
        String secret = cfg.webhookSecret() == null ? "" : cfg.webhookSecret();
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @PreDestroy
    void stop() {
        exec.shutdownNow();
    }
}
