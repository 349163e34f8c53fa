-- Which file each landed (day, user) came from, so a file fetched again can take its rows back
-- out of the open transaction. Three narrow columns: a few MB for 500,000 user-days.
CREATE OR REPLACE TEMP TABLE landed_keys (_file_index INTEGER NOT NULL, day DATE NOT NULL, user_id BIGINT);
