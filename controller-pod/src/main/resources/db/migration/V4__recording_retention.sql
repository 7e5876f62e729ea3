-- Recording retention (issue 7, docs/recording.md "Retention"): a tenant's retention period and the moment each
-- recording reached its final state, from which the period runs.

CREATE TABLE tenant_recording_settings (
    tenant_id uuid PRIMARY KEY,
    -- days a finished recording (objects and row) is kept; NULL = keep forever
    retention_days integer CHECK (retention_days IS NULL OR retention_days > 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE recording_jobs ADD COLUMN finished_at timestamptz;

-- jobs that finished before this column existed: their last update was the final state (never left)
UPDATE recording_jobs SET finished_at = updated_at
    WHERE state IN ('ready', 'partial', 'failed') AND finished_at IS NULL;

CREATE INDEX recording_jobs_finished ON recording_jobs (finished_at) WHERE finished_at IS NOT NULL;
