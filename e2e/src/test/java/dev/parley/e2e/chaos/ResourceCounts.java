package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The platform's countable resources (SFU transports, TURN allocations, etcd keys, signaling sockets, PostgreSQL
 * connections) read from the pods' own endpoints, etcd's JSON gateway and {@code pg_stat_activity}: what must
 * return to its baseline after cleanup (chaos) and stay flat over hours (soak).
 */
final class ResourceCounts {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final ChaosPlatform platform;
    private final Supplier<List<Observation.SfuView>> sfuViews;

    ResourceCounts(ChaosPlatform platform, Supplier<List<Observation.SfuView>> sfuViews) {
        this.platform = platform;
        this.sfuViews = sfuViews;
    }

    /** The counted resources right now. */
    Map<String, Long> counts() {
        Map<String, Long> out = new LinkedHashMap<>();
        long transports = 0;
        long meetings = 0;
        for (Observation.SfuView v : sfuViews.get()) {
            if (v.reach() == Observation.Reach.ANSWERED) {
                transports += v.transports();
                meetings += v.meetings().size();
            } else if (v.reach() == Observation.Reach.UNKNOWN) {
                transports += 1_000_000;
                meetings += 1_000_000;
            }
        }
        out.put("sfu transports", transports);
        // meetings an SFU still holds: one that ended must go too, not only its transports
        out.put("sfu meetings", meetings);
        out.put("turn allocations", (long) metric("http://127.0.0.1:" + platform.turn.internalPort + "/metrics", "parley_turn_allocations"));
        out.put("etcd meeting keys", etcdKeys("/parley/v1/meetings/", null));
        out.put("etcd recording request/runner keys", etcdKeys("/parley/v1/recordings/", "/request")
            + etcdKeys("/parley/v1/recordings/", "/runner"));
        long sockets = 0;
        for (Pod c : platform.controllers) {
            if (c.alive()) sockets += (long) metric("http://127.0.0.1:" + c.internalPort + "/prometheus", "parley_active_connections");
        }
        out.put("signaling sockets", sockets);
        long total = pgCount("");
        long live = platform.controllers.stream().filter(Pod::alive).count();
        out.put("postgres connections beyond the live pools", total < 0 ? -1 : Math.max(0, total - live * POOL_MAX));
        out.put("postgres sessions busy > 5 s", pgCount(" AND state <> 'idle' AND now() - state_change > interval '5 seconds'"));
        return out;
    }

    double turnMetric(String name) {
        return metric("http://127.0.0.1:" + platform.turn.internalPort + "/metrics", name);
    }

    double metric(String url, String name) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3))
                .header("Authorization", "Bearer " + platform.internalSecret).GET().build(), HttpResponse.BodyHandlers.ofString());
            double sum = 0;
            for (String line : r.body().split("\n")) {
                if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
                }
            }
            return sum;
        } catch (Exception e) {
            return -1;
        }
    }

    private long etcdKeys(String prefix, String suffix) {
        for (var m : platform.etcd.members()) {
            if (!m.isRunning()) continue;
            try {
                byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
                byte[] end = p.clone();
                end[end.length - 1]++;
                ObjectNode b = Api.JSON.createObjectNode().put("key", Base64.getEncoder().encodeToString(p))
                    .put("range_end", Base64.getEncoder().encodeToString(end)).put("keys_only", true);
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(m.clientUrl() + "/v3/kv/range"))
                    .timeout(Duration.ofSeconds(3)).POST(HttpRequest.BodyPublishers.ofString(b.toString())).build(),
                    HttpResponse.BodyHandlers.ofString());
                long n = 0;
                for (JsonNode kv : Api.JSON.readTree(r.body()).path("kvs")) {
                    String k = new String(Base64.getDecoder().decode(kv.path("key").asText()), StandardCharsets.UTF_8);
                    if (suffix == null || k.endsWith(suffix)) n++;
                }
                return n;
            } catch (Exception e) {
                // next member
            }
        }
        return -1;
    }

    /** Hikari's maximum-pool-size of a controller (controller-pod application.yml). */
    private static final long POOL_MAX = 24;

    long pgCount(String condition) {
        try (Connection c = platform.postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + PostgresServer.DATABASE
                 + "' AND application_name <> 'chaos-checker'" + condition)) {
            rs.next();
            return rs.getLong(1);
        } catch (Exception e) {
            return -1;
        }
    }
}
