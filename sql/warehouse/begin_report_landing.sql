-- First statements of a report's landing transaction; the deletes of the report's rows follow,
-- one per table the catalog says the report replaces (pipelines/warehouse/replace.py).
-- Which file each landed (level, day, user) came from, so a file fetched again can take its rows
-- back out of the open transaction, and the line it came from, so two lines of one key are
-- found before the checks (select_repeated_keys.sql). Narrow columns: a few MB for 500,000 user-days.
-- `rejected`: the line holds the key but a rule of the data refused it (insert_rejected_keys.sql):
-- nothing of it landed, yet the key's other lines cannot land beside it. `orphaned`: a file fetched
-- again took this key's rows out (orphan_shared_keys.sql): the line is landed again from the archive.
CREATE OR REPLACE TEMP TABLE landed_keys (_file_index INTEGER NOT NULL, level VARCHAR NOT NULL, day DATE NOT NULL,
                                          user_id BIGINT, line_number BIGINT NOT NULL,
                                          rejected BOOLEAN NOT NULL DEFAULT false,
                                          orphaned BOOLEAN NOT NULL DEFAULT false);
-- At user level a day landed from its 1-day report stays: only the 1-day report comes with
-- that day's team memberships (docs/extensions.md), and team metrics never join a 28-day
-- user report to them. So a 28-day user report fills only the days no 1-day report landed.
CREATE OR REPLACE TEMP TABLE kept_days AS
SELECT DISTINCT day FROM core.user_daily_totals
 WHERE $level = 'user' AND $report_kind = '28-day' AND report_kind = '1-day'
   AND scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
-- The agent ids the old rows named are kept aside: their dimension rows are refreshed too.
CREATE OR REPLACE TEMP TABLE touched_agents AS
SELECT DISTINCT agent_id FROM core.agent_days
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
