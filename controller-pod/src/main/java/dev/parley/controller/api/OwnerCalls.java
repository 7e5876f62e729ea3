package dev.parley.controller.api;

import dev.parley.controller.auth.Caller;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.logging.RequestMdc;
import dev.parley.controller.meeting.MeetingService;
import dev.parley.controller.meeting.NotOwnerException;
import dev.parley.controller.ownership.Forwarder;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.ownership.Route;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import jakarta.inject.Singleton;

import java.util.UUID;
import java.util.function.LongFunction;

/** Runs a meeting operation on its owner: here with our epoch, or forwarded to the owner. */
@Singleton
public class OwnerCalls {
    private final Ownership ownership;
    private final Forwarder forwarder;
    private final MeetingService meetings;
    private final ParleyConfig cfg;

    public OwnerCalls(Ownership ownership, Forwarder forwarder, MeetingService meetings, ParleyConfig cfg) {
        this.ownership = ownership;
        this.forwarder = forwarder;
        this.meetings = meetings;
        this.cfg = cfg;
    }

    public HttpResponse<String> run(HttpRequest<?> req, String body, Caller caller, UUID meetingId,
                                    LongFunction<HttpResponse<String>> local) {
        if (ownership.epochIfOwned(meetingId) == null) {
            // never create owner keys for unknown meetings; owned meetings check the tenant under the row lock
            meetings.requireVisible(caller, meetingId);
        }
        Route r = ownership.route(meetingId);
        if (r instanceof Route.Remote remote) {
            return forwarder.forward(req, body, remote.owner(), cfg.podName());
        }
        long epoch = ((Route.Local) r).epoch();
        ownership.requireConfirmedLease();
        RequestMdc.epoch(epoch);
        try {
            return local.apply(epoch);
        } catch (NotOwnerException e) {
            ownership.lost(meetingId, e.ourEpoch());
            throw e;
        }
    }
}
