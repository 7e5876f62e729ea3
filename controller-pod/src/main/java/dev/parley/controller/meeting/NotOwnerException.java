package dev.parley.controller.meeting;

import dev.parley.controller.http.ApiException;

import java.util.UUID;

/** PostgreSQL holds a different controller_epoch than ours: we must not act for this meeting. */
public final class NotOwnerException extends ApiException {
    private static final long serialVersionUID = 1L;
    private final transient UUID meetingId;
    private final long ourEpoch;

    public NotOwnerException(UUID meetingId, long ourEpoch, long dbEpoch) {
        super(503, "owner_changed", "controller epoch " + ourEpoch + " was superseded by " + dbEpoch + "; retry");
        this.meetingId = meetingId;
        this.ourEpoch = ourEpoch;
    }

    public UUID meetingId() {
        return meetingId;
    }

    public long ourEpoch() {
        return ourEpoch;
    }
}
