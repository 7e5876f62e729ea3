-- Top-N audio (docs/api.md): how many speakers each receiver's audio slots carry, set at creation, 1..16.
ALTER TABLE meetings ADD COLUMN audio_top_n integer NOT NULL DEFAULT 3 CHECK (audio_top_n BETWEEN 1 AND 16);

-- create_meeting_with_outbox takes audio_top_n too; it is part of the request an Idempotency-Key is bound to.
DROP FUNCTION create_meeting_with_outbox(uuid, uuid, uuid, text, text, text, boolean, integer, text);

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
    p_audio_top_n integer
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
        'audio_top_n', p_audio_top_n
    );
    INSERT INTO meetings (
        meeting_id, tenant_id, organizer_id, idempotency_key,
        creation_request, title, encryption_mode, waiting_room_enabled, max_participants, region, audio_top_n
    ) VALUES (
        p_proposed_id, p_tenant_id, p_organizer_id, p_idempotency_key,
        v_request, p_title, p_encryption_mode, p_waiting_room_enabled, p_max_participants, p_region, p_audio_top_n
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
