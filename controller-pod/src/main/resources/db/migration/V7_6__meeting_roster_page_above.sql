-- Paged roster (issue 18): above this many admitted participants a signaling socket gets a roster_summary and the
-- changes of the participants it watches instead of every roster change (docs/api.md "Paged roster"). Set at
-- creation, 1..10000. Version 7.6: after 7.5 (large-meeting policy), landed the same day.
ALTER TABLE meetings ADD COLUMN roster_page_above integer NOT NULL DEFAULT 100
    CHECK (roster_page_above BETWEEN 1 AND 10000);
