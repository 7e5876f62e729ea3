-- floor.sh: the minimal PostgreSQL write set of ONE join (attendee into a waiting room, admitted, transport),
-- each request ONE transaction of ONE statement (what a server-side function per request could reach):
-- 1. join: meeting row (seat + control_seq) + tenant seat + participant row + its control event + outbox row
-- 2. admit: meeting row (control_seq) + participant admitted + command record + 2 control events + 2 outbox rows
-- 3. transport: participant's generation bump + the transport attempt row (idempotent retries)
-- Every write is fenced by controller_epoch and the seat checks are in the WHERE clauses, like the controller's.
\set m random(1, 2000)
\set k random(1, 2000000000)
WITH m AS (
  UPDATE meetings SET active_participants = active_participants + 1, control_seq = control_seq + 1
  WHERE meeting_id = ('00000000-0000-0000-0000-' || lpad(:m::text, 12, '0'))::uuid AND controller_epoch = 1
    AND status <> 'ended' AND active_participants < max_participants
  RETURNING meeting_id, tenant_id, control_seq),
t AS (
  UPDATE tenant_usage SET active_participants = active_participants + 1 FROM m
  WHERE tenant_usage.tenant_id = m.tenant_id AND active_participants < max_concurrent_participants
  RETURNING 1),
p AS (
  INSERT INTO meeting_participants (meeting_id, participant_id, principal_id, client_instance_id, idempotency_key,
                                    role, admission_state, display_name, join_request)
  SELECT m.meeting_id, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'j' || :k, 'attendee', 'waiting', 'a',
         '{"client_instance_id": "5b0c2f7e-7d0a-4c61-9a55-0d6c1f1f3b11", "display_name": "a"}'
  FROM m, t
  RETURNING meeting_id, participant_id),
o AS (
  INSERT INTO outbox_events (event_id, meeting_id, aggregate_version, event_type, idempotency_key, payload)
  SELECT gen_random_uuid(), p.meeting_id, 1, 'participant.joined', p.participant_id::text,
         jsonb_build_object('participant_id', p.participant_id, 'display_name', 'a', 'role', 'attendee',
                            'admission_state', 'waiting', 'participant_version', 1)
  FROM p),
e AS (
  INSERT INTO control_events (meeting_id, controller_epoch, seq, event_id, event_type, payload)
  SELECT p.meeting_id, 1, m.control_seq, gen_random_uuid(), 'participant_waiting',
         jsonb_build_object('participant_id', p.participant_id, 'display_name', 'a', 'role', 'attendee',
                            'admission_state', 'waiting', 'participant_version', 1)
  FROM m, p)
SELECT participant_id AS pid FROM p
\gset
WITH m AS (
  UPDATE meetings SET control_seq = control_seq + 2
  WHERE meeting_id = ('00000000-0000-0000-0000-' || lpad(:m::text, 12, '0'))::uuid AND controller_epoch = 1
  RETURNING meeting_id, control_seq),
p AS (
  UPDATE meeting_participants SET admission_state = 'admitted', audio_publish_allowed = true,
         video_publish_allowed = true, version = version + 1, admitted_at = now(), updated_at = now()
  FROM m WHERE meeting_participants.meeting_id = m.meeting_id AND participant_id = :pid AND admission_state = 'waiting'
  RETURNING meeting_participants.meeting_id, participant_id, version),
c AS (
  INSERT INTO commands (command_id, meeting_id, principal_id, idempotency_key, request_hash, command_type,
                        participant_id, state, media_enforcement, response, controller_epoch)
  SELECT gen_random_uuid(), p.meeting_id, gen_random_uuid(), 'a' || :k, 'h' || :k, 'admit', p.participant_id,
         'committed', 'not_required', jsonb_build_object('state', 'committed', 'participant_version', p.version), 1
  FROM p),
o AS (
  INSERT INTO outbox_events (event_id, meeting_id, aggregate_version, event_type, idempotency_key, payload)
  SELECT gen_random_uuid(), p.meeting_id, p.version, x.t, x.t || ':' || p.participant_id, jsonb_build_object(
           'participant_id', p.participant_id, 'admission_state', 'admitted', 'participant_version', p.version)
  FROM p, (VALUES (1, 'participant.admitted'), (2, 'command.admit')) AS x(n, t) ORDER BY x.n),
e AS (
  INSERT INTO control_events (meeting_id, controller_epoch, seq, event_id, event_type, payload)
  SELECT p.meeting_id, 1, m.control_seq - 2 + x.n, gen_random_uuid(), x.t, jsonb_build_object(
           'participant_id', p.participant_id, 'admission_state', 'admitted', 'participant_version', p.version)
  FROM m, p, (VALUES (1, 'participant_admitted'), (2, 'command_committed')) AS x(n, t))
SELECT version FROM p
\gset
WITH p AS (
  UPDATE meeting_participants SET transport_generation = transport_generation + 1, sfu_pod = 'sfu-0', updated_at = now()
  WHERE meeting_id = ('00000000-0000-0000-0000-' || lpad(:m::text, 12, '0'))::uuid AND participant_id = :pid
    AND admission_state = 'admitted'
  RETURNING meeting_id, participant_id, transport_generation),
a AS (
  INSERT INTO transport_attempts (meeting_id, participant_id, idempotency_key, request_hash, transport_generation,
                                  sfu_pod, device_key_id)
  SELECT meeting_id, participant_id, 't' || :k, 'h' || :k, transport_generation, 'sfu-0', 'dk' FROM p)
SELECT transport_generation FROM p
\gset
