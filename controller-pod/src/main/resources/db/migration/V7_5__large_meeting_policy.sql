-- Large-meeting policy (issue 18, docs/api.md "Large meetings"). Version 7.5 so that other migrations numbered 7.x
-- or 8 can land beside it.
-- meetings.large_meeting_size: attendees joining when the meeting holds more participants than this (waiting ones
-- count, the joiner too) join muted with camera off (a client default the join answer tells; NULL = off).
-- meetings.unmute_policy: 'hosts_and_presenters' = attendees may publish neither audio nor video (their grant says
-- so, the SFU drops what they send) unless a moderator allowed them to speak (speak_allowed: the presenters).
ALTER TABLE meetings
    ADD COLUMN large_meeting_size integer DEFAULT 50 CHECK (large_meeting_size BETWEEN 1 AND 10000),
    ADD COLUMN unmute_policy text NOT NULL DEFAULT 'everyone' CHECK (unmute_policy IN ('everyone', 'hosts_and_presenters'));

-- joined_muted: decided once at join; speak_allowed: a moderator's allow_speak; hand_raised_at: the raise-hand queue
-- (one hand per participant; the queue is ordered by this time, then participant id).
ALTER TABLE meeting_participants
    ADD COLUMN joined_muted boolean NOT NULL DEFAULT false,
    ADD COLUMN speak_allowed boolean NOT NULL DEFAULT false,
    ADD COLUMN hand_raised_at timestamptz;
CREATE INDEX raised_hands ON meeting_participants (meeting_id, hand_raised_at, participant_id)
    WHERE hand_raised_at IS NOT NULL;

-- create_meeting_with_outbox takes the policy too; it is part of the request an Idempotency-Key is bound to.
DROP FUNCTION create_meeting_with_outbox(uuid, uuid, uuid, text, text, text, boolean, integer, text, integer);

CREATE FUNCTION create_meeting_with_outbox(
    p_proposed_id uuid,
    p_tenant_id uuid,
    p_organizer_id uuid,
    p_idempotency_key text,
    p_title text,
    p_encryption_mode text,
    p_waiting_room_enabled boolean,
    p_max_participants integer,
    p_region text,
    p_audio_top_n integer,
    p_large_meeting_size integer,
    p_unmute_policy text
) RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_request jsonb;
    v_meeting meetings%ROWTYPE;
BEGIN
    v_request := jsonb_build_object(
        'title', p_title,
        'encryption_mode', p_encryption_mode,
        'waiting_room_enabled', p_waiting_room_enabled,
        'max_participants', p_max_participants,
        'audio_top_n', p_audio_top_n,
        'large_meeting_size', p_large_meeting_size,
        'unmute_policy', p_unmute_policy
    );
    INSERT INTO meetings (
        meeting_id, tenant_id, organizer_id, idempotency_key,
        creation_request, title, encryption_mode, waiting_room_enabled, max_participants, region, audio_top_n,
        large_meeting_size, unmute_policy
    ) VALUES (
        p_proposed_id, p_tenant_id, p_organizer_id, p_idempotency_key,
        v_request, p_title, p_encryption_mode, p_waiting_room_enabled, p_max_participants, p_region, p_audio_top_n,
        p_large_meeting_size, p_unmute_policy
    )
    ON CONFLICT (tenant_id, organizer_id, idempotency_key)
    DO NOTHING;
    -- a separate statement: under READ COMMITTED it sees the row a concurrent winner committed
    SELECT m.* INTO STRICT v_meeting
    FROM meetings AS m
    WHERE m.tenant_id = p_tenant_id
      AND m.organizer_id = p_organizer_id
      AND m.idempotency_key = p_idempotency_key
    FOR UPDATE;
    IF v_meeting.creation_request IS DISTINCT FROM v_request THEN
        RAISE EXCEPTION 'idempotency key reused with different request' USING ERRCODE = 'P0409';
    END IF;
    INSERT INTO outbox_events (
        event_id, meeting_id, aggregate_version,
        event_type, idempotency_key, payload
    ) VALUES (
        gen_random_uuid(), v_meeting.meeting_id, 1,
        'meeting.created', p_idempotency_key,
        jsonb_build_object(
            'meeting_id', v_meeting.meeting_id,
            'created_at', v_meeting.created_at,
            'request', v_meeting.creation_request
        )
    )
    ON CONFLICT (meeting_id, event_type, idempotency_key)
    DO NOTHING;
    RETURN v_meeting.meeting_id;
END;
$$;

-- join_meeting (V5) with the policy: v_restricted (no audio/video grant) and v_muted (joined_muted). Same signature,
-- same checks and writes otherwise.
CREATE OR REPLACE FUNCTION join_meeting(
    p_meeting uuid,
    p_epoch bigint,
    p_tenant uuid,
    p_principal uuid,
    p_client_instance uuid,
    p_key text,
    p_display_name text,
    p_request jsonb,
    p_participant uuid,
    p_tenant_max integer,
    p_event_id uuid,
    p_outbox_id uuid
) RETURNS TABLE (
    o_outcome text, o_info text, o_seq bigint,
    -- ParticipantRow.COLS
    o_meeting_id uuid, o_participant_id uuid, o_principal_id uuid, o_client_instance_id uuid, o_idempotency_key text,
    o_role text, o_admission_state text, o_audio boolean, o_video boolean, o_screen boolean,
    o_transport_generation bigint, o_version bigint, o_display_name text, o_request_hash text, o_sfu_pod text,
    o_unmute_requested boolean
)
LANGUAGE plpgsql
AS $$
DECLARE
    m meetings%ROWTYPE;
    p meeting_participants%ROWTYPE;
    v_outcome text;
    v_info text;
    v_seq bigint;
    v_organizer boolean;
    v_role text;
    v_admitted boolean;
    v_audio boolean;
    v_restricted boolean;
    v_muted boolean;
    v_payload jsonb;
BEGIN
    <<decide>>
    BEGIN
        SELECT * INTO m FROM meetings WHERE meeting_id = p_meeting FOR UPDATE;
        IF NOT FOUND OR m.tenant_id <> p_tenant THEN
            v_outcome := 'meeting_not_found';
            EXIT decide;
        END IF;
        IF m.controller_epoch <> p_epoch THEN
            v_outcome := 'not_owner';
            v_info := m.controller_epoch::text;
            EXIT decide;
        END IF;
        -- this key's earlier join (unique per meeting, principal and key) answers before any other check
        SELECT * INTO p FROM meeting_participants
            WHERE meeting_id = p_meeting AND principal_id = p_principal AND idempotency_key = p_key;
        IF FOUND THEN
            v_outcome := 'existing';
            EXIT decide;
        END IF;
        IF m.status IN ('ending', 'ended') THEN
            v_outcome := 'meeting_ended';
            v_info := m.status;
            EXIT decide;
        END IF;
        IF EXISTS (SELECT 1 FROM principal_bans WHERE meeting_id = p_meeting AND principal_id = p_principal) THEN
            v_outcome := 'banned';
            EXIT decide;
        END IF;
        v_organizer := p_principal = m.organizer_id;
        IF m.locked AND NOT v_organizer THEN
            v_outcome := 'locked';
            EXIT decide;
        END IF;
        SELECT participant_id::text INTO v_info FROM meeting_participants
            WHERE meeting_id = p_meeting AND principal_id = p_principal AND client_instance_id = p_client_instance
              AND admission_state IN ('waiting', 'admitted');
        IF FOUND THEN
            v_outcome := 'device_active';
            EXIT decide;
        END IF;
        v_role := CASE WHEN v_organizer AND NOT EXISTS (SELECT 1 FROM meeting_participants WHERE meeting_id = p_meeting
            AND role = 'host' AND admission_state = 'admitted') THEN 'host' ELSE 'attendee' END;
        v_admitted := v_role = 'host' OR NOT m.waiting_room_enabled;
        -- large-meeting policy: under hosts_and_presenters an attendee may publish neither audio nor video until a
        -- moderator allows it (allow_speak); above large_meeting_size an attendee joins muted with camera off
        v_restricted := v_role = 'attendee' AND m.unmute_policy = 'hosts_and_presenters';
        v_muted := v_role = 'attendee' AND m.large_meeting_size IS NOT NULL
            AND m.active_participants + 1 > m.large_meeting_size;
        v_audio := v_admitted AND (NOT m.mute_all OR m.allow_self_unmute OR v_role = 'host') AND NOT v_restricted;
        -- meeting seat (conditional increment: concurrent joins can't overshoot), go-live and the event's
        -- sequence step in one row version; fenced by the epoch as every write
        UPDATE meetings SET active_participants = active_participants + 1,
                control_seq = control_seq + 1,
                status = CASE WHEN v_admitted AND status = 'scheduled' THEN 'live' ELSE status END,
                version = CASE WHEN v_admitted AND status = 'scheduled' THEN version + 1 ELSE version END,
                updated_at = CASE WHEN v_admitted AND status = 'scheduled' THEN now() ELSE updated_at END
            WHERE meeting_id = p_meeting AND controller_epoch = p_epoch AND active_participants < max_participants
            RETURNING control_seq INTO v_seq;
        IF NOT FOUND THEN
            v_outcome := 'meeting_full';
            EXIT decide;
        END IF;
        INSERT INTO meeting_participants (meeting_id, participant_id, principal_id, client_instance_id, idempotency_key,
                role, admission_state, audio_publish_allowed, video_publish_allowed, screen_publish_allowed,
                display_name, join_request, admitted_at, joined_muted)
            VALUES (p_meeting, p_participant, p_principal, p_client_instance, p_key, v_role,
                CASE WHEN v_admitted THEN 'admitted' ELSE 'waiting' END, v_audio, v_admitted AND NOT v_restricted,
                v_admitted AND v_role = 'host', p_display_name, p_request, CASE WHEN v_admitted THEN now() END, v_muted)
            RETURNING * INTO p;
        -- ParticipantService.participantJson
        v_payload := jsonb_build_object('participant_id', p.participant_id, 'display_name', p.display_name,
            'role', p.role, 'admission_state', p.admission_state, 'participant_version', p.version,
            'publish', jsonb_build_object('audio', p.audio_publish_allowed, 'video', p.video_publish_allowed,
                'screen', p.screen_publish_allowed));
        INSERT INTO outbox_events (event_id, meeting_id, aggregate_version, event_type, idempotency_key, payload)
            VALUES (p_outbox_id, p_meeting, greatest(1, p.version),
                CASE WHEN v_admitted THEN 'participant.joined' ELSE 'participant.waiting' END, p.participant_id::text,
                v_payload)
            ON CONFLICT (meeting_id, event_type, idempotency_key) DO NOTHING;
        INSERT INTO control_events (meeting_id, controller_epoch, seq, event_id, event_type, payload)
            VALUES (p_meeting, p_epoch, v_seq, p_event_id,
                CASE WHEN v_admitted THEN 'participant_joined' ELSE 'participant_waiting' END, v_payload);
        -- ControlLog's retention: whenever the sequence reaches a multiple of 200
        IF v_seq % 200 = 0 THEN
            DELETE FROM control_events WHERE meeting_id = p_meeting AND (controller_epoch < p_epoch OR seq <= v_seq - 1000);
        END IF;
        -- the tenant seat LAST: its row is shared by every meeting of the tenant, so its lock is held only from here
        -- to the commit at the end of this statement (lock order is still meeting row, then tenant row). When the
        -- limit is reached the statement fails, and everything above (meeting seat, row, events) is rolled back.
        INSERT INTO tenant_usage AS u (tenant_id, max_concurrent_participants, active_participants)
            VALUES (m.tenant_id, p_tenant_max, 1)
            ON CONFLICT (tenant_id) DO UPDATE SET active_participants = u.active_participants + 1
            WHERE u.active_participants < u.max_concurrent_participants;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'tenant concurrent participant limit reached' USING ERRCODE = 'P0429';
        END IF;
        v_outcome := 'joined';
    END decide;
    -- o_info of a join (new or replayed): whether the participant joins muted with camera off
    IF v_outcome IN ('joined', 'existing') AND p.joined_muted THEN
        v_info := 'joined_muted';
    END IF;
    RETURN QUERY SELECT v_outcome, v_info, v_seq, p.meeting_id, p.participant_id, p.principal_id, p.client_instance_id,
        p.idempotency_key, p.role, p.admission_state, p.audio_publish_allowed, p.video_publish_allowed,
        p.screen_publish_allowed, p.transport_generation, p.version, p.display_name, p.join_request->>'_hash', p.sfu_pod,
        p.unmute_requested;
END;
$$;

-- admit_participant (V5) with the policy: an attendee admitted under hosts_and_presenters gets no audio/video grant.
CREATE OR REPLACE FUNCTION admit_participant(
    p_meeting uuid,
    p_epoch bigint,
    p_tenant uuid,
    p_principal uuid,
    p_key text,
    p_hash text,
    p_target uuid,
    p_expected_version bigint,
    p_command_id uuid,
    p_event_ids uuid[],
    p_outbox_ids uuid[]
) RETURNS TABLE (
    o_outcome text, o_seq bigint,
    -- ParticipantRow.COLS
    o_meeting_id uuid, o_participant_id uuid, o_principal_id uuid, o_client_instance_id uuid, o_idempotency_key text,
    o_role text, o_admission_state text, o_audio boolean, o_video boolean, o_screen boolean,
    o_transport_generation bigint, o_version bigint, o_display_name text, o_request_hash text, o_sfu_pod text,
    o_unmute_requested boolean
)
LANGUAGE plpgsql
AS $$
DECLARE
    m meetings%ROWTYPE;
    actor meeting_participants%ROWTYPE;
    p meeting_participants%ROWTYPE;
    v_seq bigint;
    v_participant jsonb;
    v_command jsonb;
BEGIN
    <<decide>>
    BEGIN
        SELECT * INTO m FROM meetings WHERE meeting_id = p_meeting FOR UPDATE;
        IF NOT FOUND OR m.tenant_id <> p_tenant OR m.controller_epoch <> p_epoch OR m.status IN ('ending', 'ended')
                OR EXISTS (SELECT 1 FROM commands WHERE meeting_id = p_meeting AND principal_id = p_principal
                           AND idempotency_key = p_key) THEN
            EXIT decide;
        END IF;
        -- CommandService.moderator: the caller's newest active row that is an admitted host or cohost
        SELECT * INTO actor FROM meeting_participants
            WHERE meeting_id = p_meeting AND principal_id = p_principal AND admission_state = 'admitted'
              AND role IN ('host', 'cohost')
            ORDER BY created_at DESC LIMIT 1;
        IF NOT FOUND THEN
            EXIT decide;
        END IF;
        SELECT * INTO p FROM meeting_participants WHERE meeting_id = p_meeting AND participant_id = p_target FOR UPDATE;
        IF NOT FOUND OR (p_expected_version IS NOT NULL AND p_expected_version <> p.version)
                OR (p.role = 'host' AND actor.role <> 'host' AND p.participant_id <> actor.participant_id)
                OR p.admission_state <> 'waiting' THEN
            EXIT decide;
        END IF;
        UPDATE meeting_participants SET admission_state = 'admitted', admitted_at = now(),
                audio_publish_allowed = (NOT m.mute_all OR m.allow_self_unmute)
                    AND NOT (p.role = 'attendee' AND m.unmute_policy = 'hosts_and_presenters'),
                video_publish_allowed = NOT (p.role = 'attendee' AND m.unmute_policy = 'hosts_and_presenters'),
                version = version + 1, updated_at = now()
            WHERE meeting_id = p_meeting AND participant_id = p_target AND version = p.version
            RETURNING * INTO p;
        UPDATE meetings SET control_seq = control_seq + 2,
                status = CASE WHEN status = 'scheduled' THEN 'live' ELSE status END,
                version = CASE WHEN status = 'scheduled' THEN version + 1 ELSE version END
            WHERE meeting_id = p_meeting AND controller_epoch = p_epoch
            RETURNING control_seq - 1 INTO v_seq;
        -- ParticipantService.participantJson and CommandService's command_committed payload
        v_participant := jsonb_build_object('participant_id', p.participant_id, 'display_name', p.display_name,
            'role', p.role, 'admission_state', p.admission_state, 'participant_version', p.version,
            'publish', jsonb_build_object('audio', p.audio_publish_allowed, 'video', p.video_publish_allowed,
                'screen', p.screen_publish_allowed));
        v_command := jsonb_build_object('command_id', p_command_id, 'command_type', 'admit',
            'media_enforcement', 'not_required', 'participant_id', p_target);
        -- in this order, as ControlLog.appendAll writes them (the relay publishes by position)
        INSERT INTO outbox_events (event_id, meeting_id, aggregate_version, event_type, idempotency_key, payload)
            VALUES (p_outbox_ids[1], p_meeting, greatest(1, p.version), 'participant.participant_admitted',
                    p.participant_id || ':' || p.version, v_participant)
            ON CONFLICT (meeting_id, event_type, idempotency_key) DO NOTHING;
        INSERT INTO outbox_events (event_id, meeting_id, aggregate_version, event_type, idempotency_key, payload)
            VALUES (p_outbox_ids[2], p_meeting, greatest(1, m.version), 'command.admit', p_command_id::text,
                    v_command || jsonb_build_object('type', 'admit'))
            ON CONFLICT (meeting_id, event_type, idempotency_key) DO NOTHING;
        INSERT INTO control_events (meeting_id, controller_epoch, seq, event_id, event_type, payload)
            VALUES (p_meeting, p_epoch, v_seq, p_event_ids[1], 'participant_admitted', v_participant),
                   (p_meeting, p_epoch, v_seq + 1, p_event_ids[2], 'command_committed', v_command);
        INSERT INTO commands (command_id, meeting_id, principal_id, idempotency_key, request_hash, command_type,
                participant_id, state, media_enforcement, response, controller_epoch)
            VALUES (p_command_id, p_meeting, p_principal, p_key, p_hash, 'admit', p_target, 'committed', 'not_required',
                    jsonb_build_object('participant_version', p.version, 'command_id', p_command_id,
                        'state', 'committed', 'media_enforcement', 'not_required'), p_epoch);
        -- ControlLog's retention: whenever the sequence passes a multiple of 200
        IF (v_seq + 1) % 200 <= 1 AND v_seq + 1 >= 200 THEN
            DELETE FROM control_events WHERE meeting_id = p_meeting
                AND (controller_epoch < p_epoch OR seq <= (v_seq + 1) - (v_seq + 1) % 200 - 1000);
        END IF;
        RETURN QUERY SELECT 'admitted', v_seq, p.meeting_id, p.participant_id, p.principal_id, p.client_instance_id,
            p.idempotency_key, p.role, p.admission_state, p.audio_publish_allowed, p.video_publish_allowed,
            p.screen_publish_allowed, p.transport_generation, p.version, p.display_name, p.join_request->>'_hash',
            p.sfu_pod, p.unmute_requested;
        RETURN;
    END decide;
    RETURN QUERY SELECT 'fallback', NULL::bigint, NULL::uuid, NULL::uuid, NULL::uuid, NULL::uuid, NULL::text, NULL::text,
        NULL::text, NULL::boolean, NULL::boolean, NULL::boolean, NULL::bigint, NULL::bigint, NULL::text, NULL::text,
        NULL::text, NULL::boolean;
END;
$$;
