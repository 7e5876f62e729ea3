-- 100 meetings owned at epoch 1 for events-sql.sh.
INSERT INTO meetings (meeting_id, tenant_id, organizer_id, idempotency_key, creation_request, title, encryption_mode, waiting_room_enabled, controller_epoch)
SELECT ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid, gen_random_uuid(), gen_random_uuid(), 'k', '{}', 't', 'transport', true, 1 FROM generate_series(1,100) g;
