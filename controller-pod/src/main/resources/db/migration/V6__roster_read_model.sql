-- The roster read model (issue #3: "the roster read model is rebuilt from events and never used for authorization";
-- docs/controller.md "Roster read model"). GET /v1/meetings/{id}/participants pages through roster_entries, which only
-- RosterProjector writes, from the participant events of outbox_events (the stream the outbox relay publishes).
-- Nothing decides access from these tables: joins, admission, transports, reconnects and commands read
-- meeting_participants / principal_bans. Both tables can be emptied and rebuilt from outbox_events at any time.

-- One row per participant the events mentioned: the roster page's fields (ParticipantService.participantJson) and the
-- outbox position of the last event applied to it. An event is applied only when its position is higher
-- (INSERT … ON CONFLICT DO UPDATE … WHERE last_position < new position): the same event applied twice, or an older
-- event applied after a newer one, changes nothing.
CREATE TABLE roster_entries (
    meeting_id uuid NOT NULL,
    participant_id uuid NOT NULL,
    display_name text NOT NULL,
    role text NOT NULL,
    admission_state text NOT NULL,
    participant_version bigint NOT NULL,
    audio_publish boolean NOT NULL,
    video_publish boolean NOT NULL,
    screen_publish boolean NOT NULL,
    last_position bigint NOT NULL,
    last_event_id uuid NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (meeting_id, participant_id)
);

-- The roster page: a meeting's waiting and admitted participants by participant id (left/removed rows stay for
-- idempotence but are never paged through).
CREATE INDEX roster_entries_page ON roster_entries (meeting_id, participant_id)
    WHERE admission_state IN ('waiting', 'admitted');

-- Per-meeting projection checkpoint: the outbox position of the last roster event applied, and the meeting's control
-- cursor (controller_epoch, control_seq) as it was when the projection last caught up. Every roster event is written
-- together with a control-log append (which advances control_seq), so a meeting whose (controller_epoch, control_seq)
-- differs from (seen_epoch, seen_seq) may have roster events to apply; the roster page's control_cursor is
-- "seen_epoch.seen_seq" (the page is exact as of that cursor). NULL seen_*: not caught up yet (a first catch-up that
-- stopped at the per-round event limit).
CREATE TABLE roster_checkpoints (
    meeting_id uuid PRIMARY KEY,
    last_position bigint NOT NULL DEFAULT 0,
    seen_epoch bigint,
    seen_seq bigint,
    updated_at timestamptz NOT NULL DEFAULT now()
);
