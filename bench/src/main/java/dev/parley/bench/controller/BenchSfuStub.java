package dev.parley.bench.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import dev.parley.platform.etcd.Registrar;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.GrantAck;
import dev.parley.platform.grant.PutGrantBatchRequest;
import dev.parley.platform.grant.PutGrantBatchResponse;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.grant.PutGrantsResponse;
import io.etcd.jetcd.Client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * STUB SFU for the control-plane benchmark: registers in etcd and acknowledges grants, single-meeting pushes
 * and batched renewals alike, without epoch checks (so that the controller's committed → applied path runs
 * end to end). It forwards no media; the benchmark measures the controller, not an SFU.
 */
final class BenchSfuStub implements AutoCloseable {
    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer http;
    private final ProcessLease lease;
    private final Registrar registrar;

    BenchSfuStub(String pod, String region, Client etcd, String secret) throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        http.createContext("/internal/v1/", ex -> handle(ex, secret));
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.start();
        lease = new ProcessLease(etcd, 5).start();
        String url = "http://127.0.0.1:" + http.getAddress().getPort();
        registrar = new Registrar(etcd, lease, EtcdKeys.sfu(region, pod), () -> new SfuEntry(pod, region, SfuEntry.ACTIVE,
                url, "127.0.0.1", 0, 0, SfuEntry.SfuLoad.idle(), System.currentTimeMillis()), json, Duration.ofSeconds(2)).start();
    }

    String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    private void handle(HttpExchange ex, String secret) throws IOException {
        try (ex) {
            if (!("Bearer " + secret).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                ex.sendResponseHeaders(401, -1);
                return;
            }
            byte[] body = ex.getRequestBody().readAllBytes();
            String path = ex.getRequestURI().getPath();
            if (path.equals("/internal/v1/grants")) {
                json(ex, new PutGrantsResponse(acks(json.readValue(body, PutGrantsRequest.class))));
            } else if (path.equals("/internal/v1/grants/batch")) {
                List<PutGrantBatchResponse.MeetingResult> results = new ArrayList<>();
                for (PutGrantsRequest m : json.readValue(body, PutGrantBatchRequest.class).meetings()) {
                    results.add(PutGrantBatchResponse.MeetingResult.applied(m.meetingId(), acks(m)));
                }
                json(ex, new PutGrantBatchResponse(results));
            } else {
                ex.sendResponseHeaders(204, -1);
            }
        }
    }

    private static List<GrantAck> acks(PutGrantsRequest r) {
        List<GrantAck> acks = new ArrayList<>();
        for (Grant g : r.grants()) {
            acks.add(new GrantAck(g.participantId(), g.version()));
        }
        return acks;
    }

    private void json(HttpExchange ex, Object body) throws IOException {
        byte[] out = json.writeValueAsBytes(body);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, out.length);
        ex.getResponseBody().write(out);
    }

    @Override
    public void close() {
        http.stop(0);
        registrar.close();
        lease.close();
    }
}
