package dev.parley.controller.recording;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.http.Responses;
import dev.parley.controller.ownership.Route;
import dev.parley.controller.peer.InternalCaller;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.UUID;

/**
 * Recorder → controller (internal bearer secret): {@code POST /internal/v1/recordings/{job}/subscribe} (a
 * subscribe-only transport at the meeting's SFU, see {@link RecorderSubscriptions}) and
 * {@code POST /internal/v1/recordings/{job}/state} (state reports, see {@link RecorderStateReports}). A subscribe
 * that reaches a controller which does not own the meeting is forwarded once to the owner.
 */
@Controller("/internal/v1/recordings")
@Secured(SecurityRule.IS_ANONYMOUS)
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalRecordingsController {
    private static final String FORWARDED = "X-Parley-Forwarded";
    private final InternalCaller internal;
    private final RecorderSubscriptions subscriptions;
    private final RecorderStateReports reports;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    public InternalRecordingsController(InternalCaller internal, RecorderSubscriptions subscriptions,
                                        RecorderStateReports reports) {
        this.internal = internal;
        this.subscriptions = subscriptions;
        this.reports = reports;
    }

    @Post("/{jobId}/subscribe")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> subscribe(@PathVariable String jobId, @Nullable @Header("Authorization") String authorization,
                                          @Nullable @Header(FORWARDED) String forwarded, @Nullable @Body String body) {
        internal.require(authorization);
        UUID job = JsonBody.parseUuid(jobId, "job_id");
        Object r = subscriptions.subscribe(job, JsonBody.object(body));
        if (r instanceof Route.Remote remote) {
            if (forwarded != null) {
                throw ApiException.conflict("not_owner", "ownership of the meeting is moving; retry");
            }
            return forward(remote.owner().internalUrl() + "/internal/v1/recordings/" + job + "/subscribe",
                    authorization, body);
        }
        return Responses.json(200, (ObjectNode) r);
    }

    @Post("/{jobId}/state")
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> state(@PathVariable String jobId, @Nullable @Header("Authorization") String authorization,
                                      @Nullable @Body String body) {
        internal.require(authorization);
        UUID job = JsonBody.parseUuid(jobId, "job_id");
        return Responses.json(200, reports.report(job, JsonBody.object(body)));
    }

    private HttpResponse<String> forward(String url, String authorization, String body) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/json").header("Authorization", authorization)
                .header(FORWARDED, "1").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            var r = http.send(req, java.net.http.HttpResponse.BodyHandlers.ofString());
            String type = r.statusCode() == 200 ? "application/json" : "application/problem+json";
            return HttpResponse.<String>status(io.micronaut.http.HttpStatus.valueOf(r.statusCode()))
                    .contentType(type).body(r.body());
        } catch (IOException e) {
            throw ApiException.unavailable("owner_unreachable", "the meeting's controller did not answer; retry");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", "interrupted");
        }
    }

}
