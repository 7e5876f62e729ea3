-- Source of truth of the control plane (seed 000, "Core Entities & Data Modeling").
-- Every mutating transaction locks the meeting row first, so a meeting's changes are totally ordered,
-- and every write is fenced by controller_epoch.

CREATE TABLE tenant_usage (
    tenant_id uuid PRIMARY KEY,
    active_participants integer NOT NULL DEFAULT 0 CHECK (active_participants >= 0),
    max_concurrent_participants integer NOT NULL CHECK (max_concurrent_participants > 0),
    CHECK (active_participants <= max_concurrent_participants)
);

CREATE TABLE meetings (
    meeting_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL,
    organizer_id uuid NOT NULL,
    idempotency_key text NOT NULL,
    creation_request jsonb NOT NULL,
    title text NOT NULL,
    status text NOT NULL DEFAULT 'scheduled'
        CHECK (status IN ('scheduled', 'live', 'ending', 'ended')),
    encryption_mode text NOT NULL
        CHECK (encryption_mode IN ('transport', 'e2ee')),
    waiting_room_enabled boolean NOT NULL,
    controller_epoch bigint NOT NULL DEFAULT 0
        CHECK (controller_epoch >= 0),
    version bigint NOT NULL DEFAULT 1 CHECK (version > 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- additions beyond the seed's minimal schema
    locked boolean NOT NULL DEFAULT false,
    mute_all boolean NOT NULL DEFAULT false,
    allow_self_unmute boolean NOT NULL DEFAULT true,
    max_participants integer NOT NULL DEFAULT 100 CHECK (max_participants > 0),
    active_participants integer NOT NULL DEFAULT 0 CHECK (active_participants >= 0),
    sfu_pod text,
    region text NOT NULL DEFAULT 'local',
    control_seq bigint NOT NULL DEFAULT 0 CHECK (control_seq >= 0),
    ended_at timestamptz,
    CHECK (active_participants <= max_participants),
    UNIQUE (tenant_id, organizer_id, idempotency_key)
);

CREATE TABLE meeting_participants (
    meeting_id uuid NOT NULL REFERENCES meetings(meeting_id),
    participant_id uuid NOT NULL,
    principal_id uuid NOT NULL,
    client_instance_id uuid NOT NULL,
    idempotency_key text NOT NULL,
    role text NOT NULL
        CHECK (role IN ('host', 'cohost', 'attendee')),
    admission_state text NOT NULL
        CHECK (admission_state IN ('waiting', 'admitted', 'left', 'removed')),
    audio_publish_allowed boolean NOT NULL DEFAULT false,
    screen_publish_allowed boolean NOT NULL DEFAULT false,
    transport_generation bigint NOT NULL DEFAULT 0
        CHECK (transport_generation >= 0),
    version bigint NOT NULL DEFAULT 1 CHECK (version > 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- additions
    display_name text NOT NULL,
    join_request jsonb NOT NULL,
    video_publish_allowed boolean NOT NULL DEFAULT false,
    unmute_requested boolean NOT NULL DEFAULT false,
    sfu_pod text,
    admitted_at timestamptz,
    PRIMARY KEY (meeting_id, participant_id),
    UNIQUE (meeting_id, principal_id, idempotency_key)
);

CREATE UNIQUE INDEX one_active_device_session
    ON meeting_participants (meeting_id, principal_id, client_instance_id)
    WHERE admission_state IN ('waiting', 'admitted');

CREATE UNIQUE INDEX one_admitted_host
    ON meeting_participants (meeting_id)
    WHERE role = 'host' AND admission_state = 'admitted';

CREATE TABLE outbox_events (
    event_id uuid PRIMARY KEY,
    meeting_id uuid NOT NULL REFERENCES meetings(meeting_id),
    aggregate_version bigint NOT NULL CHECK (aggregate_version > 0),
    event_type text NOT NULL,
    idempotency_key text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz,
    -- relay bookkeeping: commit order within a meeting (rows are written under the meeting lock)
    position bigserial NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error text,
    dead_lettered_at timestamptz,
    UNIQUE (meeting_id, event_type, idempotency_key)
);

CREATE INDEX outbox_unpublished
    ON outbox_events (created_at, event_id)
    WHERE published_at IS NULL;

CREATE INDEX outbox_relay_order
    ON outbox_events (meeting_id, position)
    WHERE published_at IS NULL AND dead_lettered_at IS NULL;

-- Rejoin ban by principal (a removed person can't come back with a new participant_id).
CREATE TABLE principal_bans (
    meeting_id uuid NOT NULL REFERENCES meetings(meeting_id),
    principal_id uuid NOT NULL,
    banned_participant_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (meeting_id, principal_id)
);

-- Transport attempts: the same Idempotency-Key recovers the same generation (seed: retries don't bump).
CREATE TABLE transport_attempts (
    meeting_id uuid NOT NULL,
    participant_id uuid NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    transport_generation bigint NOT NULL,
    sfu_pod text NOT NULL,
    device_key_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (meeting_id, participant_id, idempotency_key),
    FOREIGN KEY (meeting_id, participant_id) REFERENCES meeting_participants (meeting_id, participant_id)
);

-- Commands: GET .../commands/{id} and idempotent replay (same key + same body: the original answer).
CREATE TABLE commands (
    command_id uuid PRIMARY KEY,
    meeting_id uuid NOT NULL REFERENCES meetings(meeting_id),
    principal_id uuid NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    command_type text NOT NULL,
    participant_id uuid,
    state text NOT NULL CHECK (state IN ('committed', 'applied', 'failed')),
    media_enforcement text NOT NULL CHECK (media_enforcement IN ('pending', 'applied', 'not_required')),
    response jsonb NOT NULL,
    controller_epoch bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    applied_at timestamptz,
    UNIQUE (meeting_id, principal_id, idempotency_key)
);

CREATE INDEX commands_pending ON commands (meeting_id) WHERE media_enforcement = 'pending';

-- Per-meeting control event log behind control_cursor "{controller_epoch}.{seq}".
CREATE TABLE control_events (
    meeting_id uuid NOT NULL REFERENCES meetings(meeting_id),
    controller_epoch bigint NOT NULL,
    seq bigint NOT NULL,
    event_id uuid NOT NULL UNIQUE,
    event_type text NOT NULL,
    payload jsonb NOT NULL,
    -- null: every participant of the meeting; otherwise only this participant sees it (privacy filter)
    audience_participant_id uuid,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (meeting_id, controller_epoch, seq)
);

CREATE TABLE recording_jobs (
    job_id uuid PRIMARY KEY,
    meeting_id uuid NOT NULL REFERENCES meetings(meeting_id),
    requested_by uuid NOT NULL,
    state text NOT NULL
        CHECK (state IN ('requested', 'starting', 'recording', 'finalizing', 'ready', 'partial', 'failed')),
    generation integer NOT NULL DEFAULT 0,
    stop_requested boolean NOT NULL DEFAULT false,
    missing_ranges jsonb NOT NULL DEFAULT '[]'::jsonb,
    object_location text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- At most one running recording per meeting.
CREATE UNIQUE INDEX one_active_recording
    ON recording_jobs (meeting_id)
    WHERE state IN ('requested', 'starting', 'recording');
