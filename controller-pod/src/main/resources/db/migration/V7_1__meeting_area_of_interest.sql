-- Area-of-interest subscriptions (issue 18): a meeting's subscription mode, set at creation, and for mode
-- 'area_of_interest' its radius and cap. Version 7.1 so that another migration numbered 7 can land beside it.
ALTER TABLE meetings
    ADD COLUMN subscription_mode text NOT NULL DEFAULT 'all'
        CHECK (subscription_mode IN ('all', 'area_of_interest')),
    ADD COLUMN aoi_radius double precision CHECK (aoi_radius >= 1 AND aoi_radius <= 100000),
    ADD COLUMN aoi_max_participants integer CHECK (aoi_max_participants BETWEEN 1 AND 100),
    ADD CONSTRAINT meetings_aoi_setting CHECK (
        (subscription_mode = 'all' AND aoi_radius IS NULL AND aoi_max_participants IS NULL)
        OR (subscription_mode = 'area_of_interest' AND aoi_radius IS NOT NULL AND aoi_max_participants IS NOT NULL));
