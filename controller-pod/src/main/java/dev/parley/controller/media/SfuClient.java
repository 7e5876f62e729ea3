package dev.parley.controller.media;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.grant.PutGrantBatchRequest;
import dev.parley.platform.internal.PutGrantBatchResponse;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.grant.PutGrantsResponse;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.CreateTransportResponse;
import dev.parley.platform.internal.InternalError;
import dev.parley.platform.internal.InternalPaths;
import dev.parley.platform.internal.UpdateSubscriptionsRequest;
import dev.parley.platform.internal.UpdateSubscriptionsResponse;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** HTTP client of the SFU internal API (docs/internal-api.md), authenticated with the shared secret. */
@Singleton
public class SfuClient {
    /** Timeout of a grant push; part of the "old grant provably expired" bound. */
    public static final Duration GRANT_TIMEOUT = Duration.ofMillis(1000);

    /**
     * Where every answer is handled: a few platform threads, scheduled by the OS
     * apart from the request handlers' virtual threads. What follows a grant ack may block (marking a command
     * applied is a PostgreSQL write): left to the client's default it ran on the one-thread common pool of a
     * 2-core pod, so every other ack waited behind that write; on virtual threads it queued behind the
     * request handlers under load (revocation {@code applied} p50 went from ~50 to ~230 ms in the benchmark).
     */
    private final ExecutorService answers = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "sfu-answers");
        t.setDaemon(true);
        return t;
    });
    /**
     * Grant calls block on their connection: a thread each while in flight (at most one push per SFU, renewals
     * limited by GrantService), created on demand and kept while busy. Platform threads, for the reason above.
     */
    private final ExecutorService grantCalls = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sfu-answers-grants"); // "sfu-answers" prefix: the benchmark counts it with the pushes
        t.setDaemon(true);
        return t;
    });
    private final KeepAliveSfuHttp grantHttp = new KeepAliveSfuHttp();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper(dev.parley.controller.http.JsonBody.pooledFactory());
    private final String auth;

    public SfuClient(ParleyConfig cfg) {
        this.auth = cfg.internalSecret() == null ? null : "Bearer " + cfg.internalSecret();
    }

    /** Outcome of a call: body on 2xx, or the SFU's error. */
    public record Result<T>(int status, T body, InternalError error) {
        public boolean ok() {
            return status / 100 == 2 && body != null;
        }

        /** Nothing listens at the SFU's address any more (connection refused): the process is gone. */
        public boolean refused() {
            return status == 0 && error != null && REFUSED.equals(error.detail());
        }
    }

    /** {@link InternalError#detail()} of a call whose connection was refused (a timeout says something else). */
    static final String REFUSED = "connection_refused";

    private HttpRequest.Builder req(String base, String path, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                .header("Content-Type", "application/json");
        if (auth != null) {
            b.header("Authorization", auth);
        }
        return b;
    }

    public CompletableFuture<Result<PutGrantsResponse>> putGrants(String base, PutGrantsRequest r) {
        return putGrantsAt(base, InternalPaths.GRANTS, r, PutGrantsResponse.class);
    }

    /** Several meetings' grants in one request (renewal round); each meeting has its own result. */
    public CompletableFuture<Result<PutGrantBatchResponse>> putGrantBatch(String base, PutGrantBatchRequest r) {
        return putGrantsAt(base, InternalPaths.GRANT_BATCH, r, PutGrantBatchResponse.class);
    }

    /**
     * Grant pushes and renewals (the frequent calls): on a kept-alive connection, written and answered on one
     * of our grant threads, which then also runs what depends on the answer; the deadline starts now.
     */
    private <T> CompletableFuture<Result<T>> putGrantsAt(String base, String path, Object request, Class<T> type) {
        if (!KeepAliveSfuHttp.handles(base)) {
            return send(req(base, path, GRANT_TIMEOUT).PUT(body(request)).build(), type);
        }
        long deadline = System.nanoTime() + GRANT_TIMEOUT.toNanos();
        byte[] payload = bytes(request);
        try {
            return CompletableFuture.supplyAsync(() -> grantCall(base, path, payload, deadline, type), grantCalls);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // shutting down: answer as an unreachable SFU, never throw at the caller
            return CompletableFuture.completedFuture(new Result<T>(0, null, new InternalError("unreachable", null, "shutdown")));
        }
    }

    private <T> Result<T> grantCall(String base, String path, byte[] payload, long deadline, Class<T> type) {
        KeepAliveSfuHttp.Response resp;
        try {
            resp = auth == null
                    ? grantHttp.exchange("PUT", base, path, payload, deadline, "Content-Type", "application/json")
                    : grantHttp.exchange("PUT", base, path, payload, deadline, "Content-Type", "application/json",
                    "Authorization", auth);
        } catch (Exception e) {
            return new Result<T>(0, null, new InternalError("unreachable", null, failure(e)));
        }
        return result(resp.status(), resp.body(), type);
    }

    public CompletableFuture<Result<CreateTransportResponse>> createTransport(String base, CreateTransportRequest r) {
        return send(req(base, InternalPaths.TRANSPORTS, Duration.ofSeconds(5)).POST(body(r)).build(),
                CreateTransportResponse.class);
    }

    public CompletableFuture<Result<UpdateSubscriptionsResponse>> updateSubscriptions(String base, String meetingId,
                                                                                    String participantId,
                                                                                    UpdateSubscriptionsRequest r) {
        return send(req(base, InternalPaths.subscriptions(meetingId, participantId), Duration.ofSeconds(3)).PUT(body(r)).build(),
                UpdateSubscriptionsResponse.class);
    }

    public CompletableFuture<Integer> removeParticipant(String base, String meetingId, String participantId, long epoch) {
        return http.sendAsync(req(base, InternalPaths.participant(meetingId, participantId, epoch), Duration.ofSeconds(2))
                        .DELETE().build(), HttpResponse.BodyHandlers.discarding())
                .thenApply(HttpResponse::statusCode)
                .exceptionally(t -> 0);
    }

    private HttpRequest.BodyPublisher body(Object o) {
        return HttpRequest.BodyPublishers.ofByteArray(bytes(o));
    }

    private byte[] bytes(Object o) {
        try {
            return json.writeValueAsBytes(o);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private <T> Result<T> result(int status, byte[] body, Class<T> type) {
        try {
            if (status / 100 == 2) {
                return new Result<>(status, json.readValue(body, type), null);
            }
            InternalError err = body.length == 0 ? null : json.readValue(body, InternalError.class);
            return new Result<T>(status, null, err);
        } catch (Exception e) {
            return new Result<T>(status, null, new InternalError("unreadable_response", null, null));
        }
    }

    private <T> CompletableFuture<Result<T>> send(HttpRequest r, Class<T> type) {
        // the answer (or the failure) and everything that depends on it run on one of our answer threads
        return http.sendAsync(r, HttpResponse.BodyHandlers.ofByteArray()).handleAsync((resp, t) -> {
            if (t != null) {
                return new Result<T>(0, null, new InternalError("unreachable", null, failure(t)));
            }
            return result(resp.statusCode(), resp.body(), type);
        }, answers);
    }

    @PreDestroy
    void stop() {
        answers.shutdown();
        grantCalls.shutdown();
        grantHttp.close();
    }

    private static String failure(Throwable t) {
        Throwable cause = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
        return cause instanceof java.net.ConnectException ? REFUSED : cause.getClass().getSimpleName();
    }
}
