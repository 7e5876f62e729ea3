package dev.parley.controller.recording;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.db.Db;
import dev.parley.controller.media.SfuClient;
import dev.parley.controller.media.SfuSelector;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.ownership.Route;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.CreateTransportResponse;
import dev.parley.platform.internal.SlotAssignment;
import dev.parley.platform.internal.TransportKind;
import dev.parley.platform.ticket.TicketSigner;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /internal/v1/recordings/{job}/subscribe}: the recorder of a job joins the meeting's SFU as the hidden
 * participant {@code recorder:{job}:{generation}} with a subscribe-only grant of this controller's epoch. The
 * recorder offers, we mint the connect ticket and create the transport at the SFU (as for a browser), and answer
 * the SFU's SDP plus slot assignments. The same transport generation again is a re-offer (fresh assignments); a
 * higher one goes to the SFU the meeting should use now (an SFU drain moves the recorder too).
 */
@Singleton
public class RecorderSubscriptions {
    private final Db db;
    private final Ownership ownership;
    private final SfuSelector selector;
    private final SfuClient sfus;
    private final TicketSigner signer;
    private final RecorderGrants grants;

    public RecorderSubscriptions(Db db, Ownership ownership, SfuSelector selector, SfuClient sfus, TicketSigner signer,
                                 RecorderGrants grants) {
        this.db = db;
        this.ownership = ownership;
        this.selector = selector;
        this.sfus = sfus;
        this.signer = signer;
        this.grants = grants;
    }

    record Job(UUID meetingId, String state, long generation, boolean stopRequested, MeetingRow meeting) {
    }

    /** The answer body, or a {@link Route.Remote} owner to forward to (null when we own the meeting). */
    public Object subscribe(UUID jobId, ObjectNode body) {
        long generation = JsonBody.nonNegativeLong(body, "generation", true);
        long transportGeneration = JsonBody.nonNegativeLong(body, "transport_generation", true);
        String offer = JsonBody.text(body, "sdp_offer", true, 64 * 1024);
        if (generation < 1 || transportGeneration < 1) {
            throw ApiException.badRequest("invalid_field", "generation and transport_generation must be >= 1");
        }
        Job job = load(jobId);
        if ("e2ee".equals(job.meeting().encryptionMode())) {
            throw ApiException.conflict("recording_not_allowed_e2ee",
                    "cloud recording is not available in end-to-end encrypted meetings");
        }
        if (!RecordingStates.isActive(job.state()) || job.stopRequested() || job.meeting().isClosing()) {
            throw ApiException.conflict("recording_stopped", "the recording job is " + job.state()
                    + (job.stopRequested() ? " (stop requested)" : ""));
        }
        if (generation < job.generation()) {
            throw ApiException.conflict("stale_generation", "generation " + generation + " was superseded by "
                    + job.generation());
        }
        Route route = ownership.route(job.meetingId());
        if (route instanceof Route.Remote remote) {
            return remote;
        }
        long epoch = ((Route.Local) route).epoch();
        SfuEntry sfu = selector.choose(job.meeting().sfuPod()).orElseThrow(() ->
                ApiException.conflict("no_media_server", "the meeting has no usable media server yet; retry"));
        Grant grant = grants.grantFor(jobId, job.meetingId(), generation, epoch, sfu.pod());
        if (grant == null) {
            throw ApiException.unavailable("lease_in_doubt", "this controller cannot confirm its etcd lease; retry");
        }
        String pid = RecorderGrants.participantId(jobId, generation);
        String ticket = signer.issue(job.meetingId().toString(), pid, transportGeneration, sfu.pod(), "recorder",
                TicketSigner.MAX_LIFETIME).token();
        CreateTransportRequest req = new CreateTransportRequest(job.meetingId().toString(), pid, transportGeneration,
                epoch, TransportKind.SUBSCRIBE, ticket, offer, grant, null);
        SfuClient.Result<CreateTransportResponse> r;
        try {
            // as for browsers: the SFU holds the grant before the offer arrives
            sfus.putGrants(sfu.internalUrl(), new PutGrantsRequest(job.meetingId().toString(), epoch, List.of(grant)))
                    .get(3, TimeUnit.SECONDS);
            r = sfus.createTransport(sfu.internalUrl(), req).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", "interrupted");
        } catch (Exception e) {
            throw ApiException.unavailable("media_server_unreachable", "the media server did not answer; retry");
        }
        if (!r.ok()) {
            String code = r.error() == null ? "media_server_error" : r.error().code();
            if (r.status() == 400) {
                throw ApiException.badRequest("bad_sdp", "the media server refused the offer: " + code);
            }
            throw ApiException.unavailable("media_server_error", "the media server answered " + r.status() + " " + code);
        }
        ObjectNode out = JsonBody.obj();
        out.put("sfu_pod", sfu.pod());
        out.put("participant_id", pid);
        out.put("controller_epoch", epoch);
        out.put("sdp_answer", r.body().sdpAnswer());
        ArrayNode slots = out.putArray("slot_assignments");
        if (r.body().slotAssignments() != null) {
            for (SlotAssignment s : r.body().slotAssignments()) {
                slots.addObject().put("mid", s.mid()).put("participant_id", s.participantId())
                        .put("track_id", s.trackId()).put("kind", s.kind());
            }
        }
        return out;
    }

    private Job load(UUID jobId) {
        return db.readSnapshot(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT meeting_id, state, generation, stop_requested "
                    + "FROM recording_jobs WHERE job_id = ?")) {
                ps.setObject(1, jobId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw ApiException.notFound("recording_not_found", "no such recording");
                    }
                    UUID m = rs.getObject(1, UUID.class);
                    return new Job(m, rs.getString(2), rs.getLong(3), rs.getBoolean(4), MeetingRow.load(c, m, false));
                }
            }
        });
    }
}
