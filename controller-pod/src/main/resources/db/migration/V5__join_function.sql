-- PostgreSQL work per join (bench/controller/README.md "Sixth session — PostgreSQL", docs/controller.md "Performance").

-- One index for the relay's pending rows instead of two. outbox_unpublished (created_at, event_id) and
-- outbox_relay_order (meeting_id, position) cost an index insertion each per outbox row, and neither serves the
-- relay's query (pending rows ORDER BY position LIMIT 500, which sorted all pending rows); this one does, and the
-- oldest-unpublished metric reads the same (small) partial index.
DROP INDEX outbox_unpublished;
DROP INDEX outbox_relay_order;
CREATE INDEX outbox_pending ON outbox_events (position) WHERE published_at IS NULL AND dead_lettered_at IS NULL;

-- Room on each page for the transport reservation's update (generation, SFU; no indexed column) to stay a HOT
-- update instead of a new index entry in all four indexes once the page is full. Applies to pages filled from now on.
ALTER TABLE meeting_participants SET (fillfactor = 80);

-- A whole join in ONE statement (one round trip, no BEGIN/COMMIT when called in autocommit): the steps and checks
-- of ParticipantService.join in the same order, under the meeting row lock. Refusals that wrote nothing come back as
-- an outcome row; a refusal after a write raises (the statement, and so everything it wrote, is rolled back).
-- Outcomes (o_info in brackets): meeting_not_found (also another tenant's meeting), not_owner [the row's epoch],
-- existing (this key's row: a replay, or a reused key when the request hash differs), meeting_ended [status],
-- banned, locked, device_active [participant_id], meeting_full, joined (o_seq: the event's control_seq).
-- Raises P0429 when the tenant's concurrent-participant limit is reached (nothing stays written).
-- The meeting row gets ONE new version for seat, go-live and event sequence (before: up to three).
CREATE FUNCTION join_meeting(
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
        v_audio := v_admitted AND (NOT m.mute_all OR m.allow_self_unmute OR v_role = 'host');
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
                display_name, join_request, admitted_at)
            VALUES (p_meeting, p_participant, p_principal, p_client_instance, p_key, v_role,
                CASE WHEN v_admitted THEN 'admitted' ELSE 'waiting' END, v_audio, v_admitted, v_admitted AND v_role = 'host',
                p_display_name, p_request, CASE WHEN v_admitted THEN now() END)
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
    RETURN QUERY SELECT v_outcome, v_info, v_seq, p.meeting_id, p.participant_id, p.principal_id, p.client_instance_id,
        p.idempotency_key, p.role, p.admission_state, p.audio_publish_allowed, p.video_publish_allowed,
        p.screen_publish_allowed, p.transport_generation, p.version, p.display_name, p.join_request->>'_hash', p.sfu_pod,
        p.unmute_requested;
END;
$$;

-- A transport reservation in ONE statement (TransportService.reserve, same checks in the same order, under the
-- meeting and participant row locks). SFU placement stays in the controller (etcd registry): it passes the pod it
-- would choose for a meeting without a usable SFU (p_fallback) and the pods it knows to be usable / not usable; a pod
-- the function needs and finds in neither list comes back as check_pod [pod] with nothing written, and the
-- controller asks again knowing it. Outcomes: meeting_not_found, not_owner [epoch], participant_not_found,
-- not_your_participant, meeting_ended [status], participant_removed, not_admitted [state], key_reused,
-- superseded [current generation], stale_generation [current generation], check_pod [pod], no_media_server,
-- replay and reserved (o_generation, o_pod, o_device_key and the participant row).
CREATE FUNCTION reserve_transport(
    p_meeting uuid,
    p_epoch bigint,
    p_tenant uuid,
    p_principal uuid,
    p_participant uuid,
    p_key text,
    p_hash text,
    p_expected bigint,
    p_device_key text,
    p_fallback text,
    p_usable text[],
    p_unusable text[]
) RETURNS TABLE (
    o_outcome text, o_info text, o_generation bigint, o_pod text, o_device_key text,
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
    a transport_attempts%ROWTYPE;
    v_outcome text;
    v_info text;
    v_gen bigint;
    v_pod text;
    v_device text;
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
        SELECT * INTO p FROM meeting_participants WHERE meeting_id = p_meeting AND participant_id = p_participant FOR UPDATE;
        IF NOT FOUND THEN
            v_outcome := 'participant_not_found';
            EXIT decide;
        END IF;
        IF p.principal_id <> p_principal THEN
            v_outcome := 'not_your_participant';
        ELSIF m.status IN ('ending', 'ended') THEN
            v_outcome := 'meeting_ended';
            v_info := m.status;
        ELSIF p.admission_state = 'removed' THEN
            v_outcome := 'participant_removed';
        ELSIF p.admission_state <> 'admitted' THEN
            v_outcome := 'not_admitted';
            v_info := p.admission_state;
        END IF;
        IF v_outcome IS NOT NULL THEN
            EXIT decide;
        END IF;
        -- the same attempt (key) recovers its generation while it is current and its SFU usable
        SELECT * INTO a FROM transport_attempts
            WHERE meeting_id = p_meeting AND participant_id = p_participant AND idempotency_key = p_key;
        IF FOUND THEN
            IF a.request_hash <> p_hash THEN
                v_outcome := 'key_reused';
            ELSIF a.transport_generation <> p.transport_generation OR a.sfu_pod = ANY (p_unusable) THEN
                v_outcome := 'superseded';
                v_info := p.transport_generation::text;
            ELSIF NOT a.sfu_pod = ANY (p_usable) THEN
                v_outcome := 'check_pod';
                v_info := a.sfu_pod;
            ELSE
                v_outcome := 'replay';
                v_gen := a.transport_generation;
                v_pod := a.sfu_pod;
                v_device := a.device_key_id;
            END IF;
            EXIT decide;
        END IF;
        IF p_expected <> p.transport_generation THEN
            v_outcome := 'stale_generation';
            v_info := p.transport_generation::text;
            EXIT decide;
        END IF;
        -- meeting-per-SFU: the meeting's SFU while usable, else the controller's choice
        IF m.sfu_pod IS NOT NULL AND m.sfu_pod = ANY (p_usable) THEN
            v_pod := m.sfu_pod;
        ELSIF m.sfu_pod IS NOT NULL AND NOT m.sfu_pod = ANY (p_unusable) THEN
            v_outcome := 'check_pod';
            v_info := m.sfu_pod;
            EXIT decide;
        ELSE
            v_pod := p_fallback;
        END IF;
        IF v_pod IS NULL THEN
            v_outcome := 'no_media_server';
            EXIT decide;
        END IF;
        IF m.sfu_pod IS DISTINCT FROM v_pod THEN
            UPDATE meetings SET sfu_pod = v_pod WHERE meeting_id = p_meeting AND controller_epoch = p_epoch;
        END IF;
        -- retries never bump: only a new attempt naming the current generation gets current + 1
        v_gen := p_expected + 1;
        v_device := p_device_key;
        UPDATE meeting_participants SET transport_generation = v_gen, sfu_pod = v_pod, updated_at = now()
            WHERE meeting_id = p_meeting AND participant_id = p_participant AND transport_generation = p_expected
            RETURNING * INTO p;
        INSERT INTO transport_attempts (meeting_id, participant_id, idempotency_key, request_hash, transport_generation,
                sfu_pod, device_key_id)
            VALUES (p_meeting, p_participant, p_key, p_hash, v_gen, v_pod, p_device_key);
        v_outcome := 'reserved';
    END decide;
    RETURN QUERY SELECT v_outcome, v_info, v_gen, v_pod, v_device, p.meeting_id, p.participant_id, p.principal_id,
        p.client_instance_id, p.idempotency_key, p.role, p.admission_state, p.audio_publish_allowed,
        p.video_publish_allowed, p.screen_publish_allowed, p.transport_generation, p.version, p.display_name,
        p.join_request->>'_hash', p.sfu_pod, p.unmute_requested;
END;
$$;

-- The admit command's usual case in ONE statement (CommandService: admitting a waiting participant). Everything else —
-- another tenant or epoch, an ending meeting, a stored command for this key (replay or reused key), a caller who
-- is not a moderator, a missing target, a version mismatch, a cohost targeting the host, a target that is not
-- waiting — returns 'fallback' having written nothing, and the controller runs the general command path, which
-- answers those cases. On 'admitted': the participant row as updated, o_seq the sequence of the first of the two
-- events (participant_admitted, then command_committed), the same rows as the general path would write: two
-- control events, two outbox rows, the command record, one new meeting row version (sequence and go-live).
CREATE FUNCTION admit_participant(
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
                audio_publish_allowed = (NOT m.mute_all OR m.allow_self_unmute), video_publish_allowed = true,
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
