-- floor.sh: 2000 meetings owned at epoch 1 (controller_epoch fences every write, as in the controller), each
-- with its own tenant seat row; room for any number of joins (the floor measures writes, not limits).
INSERT INTO meetings (meeting_id, tenant_id, organizer_id, idempotency_key, creation_request, title, encryption_mode,
                      waiting_room_enabled, controller_epoch, max_participants, status)
SELECT ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid,
       ('00000000-0000-0000-0001-' || lpad(g::text, 12, '0'))::uuid,
       gen_random_uuid(), 'k', '{"title": "bench"}', 'bench', 'transport', true, 1, 1000000000, 'live'
FROM generate_series(1, 2000) g;
INSERT INTO tenant_usage (tenant_id, active_participants, max_concurrent_participants)
SELECT ('00000000-0000-0000-0001-' || lpad(g::text, 12, '0'))::uuid, 0, 1000000000 FROM generate_series(1, 2000) g;
VACUUM ANALYZE;
