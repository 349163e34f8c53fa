-- Which team-days the tier shows (aggregate_team_day_status, read by team_daily and
-- team_periods). A team-day's count (active_users) is about its members active that day on any
-- surface; its sums about those of them whose lines carry counts (members_with_counts: a member
-- active only on a surface whose lines carry none, the desktop app before 2026-07-28, a code
-- review, the cloud agent, adds nothing to a sum):
--   1. at least $k active members, and no sum about 1..$k-1 members, or not shown;
--   2. a team-day that could be a part of a scope-day of the same date (each sum at most the
--      scope's: a team within its organization or enterprise) with fewer than $k of the scope's
--      people left beside its own: scope minus team would be those few people's figures, so the
--      team-day is not shown (unless the two are the same figures); and the other way round: a
--      team-day that could hold a whole scope-day (an enterprise team holding an organization)
--      with fewer than $k people beside the scope's is not shown. The sums are judged by the
--      people behind them (the scope's lines with activity, the team's members with counts);
--      the counts by the scope's two counts, the service's daily_active_users (which counts
--      users only its server-side telemetry saw, and never CLI-only users) and its lines with
--      activity: the fewer of the two for a scope holding a team, the more for a team holding a
--      scope; where the sums are the same, the two counts must be the same or $k or more apart;
--   3. whatever the sums: a team-day whose active users are 1..$k-1 more or fewer than a shown
--      scope-day's count of the same date (daily_active_users). Were the one's people all the
--      other's (an enterprise team holding an organization's counted users and one person of
--      another), the difference would be those few people; the tier cannot tell which users the
--      service counted (those its telemetry alone saw have lines like the inactive), so it hides
--      every such pair, which is complete whatever the sets are;
--   4. a team-day whose people (either definition) are all another team-day's, which has
--      1..$k-1 more (aggregate_nested_teams, registered by aggregate.py from
--      teams/nested_teams.sql): not shown.
CREATE OR REPLACE TEMP TABLE aggregate_team_day_status AS
WITH teams AS (
    SELECT scope, scope_name, day, team_id, active_users, coalesce(members_with_counts, 0) AS with_counts,
           coalesce(user_initiated_interaction_count, 0) AS s1, coalesce(code_generation_activity_count, 0) AS s2,
           coalesce(code_acceptance_activity_count, 0) AS s3, coalesce(loc_suggested_to_add_sum, 0) AS s4,
           coalesce(loc_added_sum, 0) AS s5, coalesce(loc_deleted_sum, 0) AS s6
    FROM core.team_report_days
), inside_scope AS (
    SELECT DISTINCT t.scope, t.scope_name, t.day, t.team_id
    FROM teams AS t
    JOIN aggregate_scope_day_status AS r ON r.day = t.day
    WHERE r.over_k AND t.active_users >= $k
      AND t.s1 <= r.s1 AND t.s2 <= r.s2 AND t.s3 <= r.s3 AND t.s4 <= r.s4 AND t.s5 <= r.s5 AND t.s6 <= r.s6
      AND (NOT (t.s1 = r.s1 AND t.s2 = r.s2 AND t.s3 = r.s3 AND t.s4 = r.s4 AND t.s5 = r.s5 AND t.s6 = r.s6)
               AND (least(r.dau, r.lines) - t.active_users < $k OR coalesce(r.lines, r.dau) - t.with_counts < $k)
           -- The same sums, but the scope's count holds a few more (users only its telemetry saw).
           OR r.dau - t.active_users BETWEEN 1 AND $k - 1)
), holds_scope AS (
    SELECT DISTINCT t.scope, t.scope_name, t.day, t.team_id
    FROM teams AS t
    JOIN aggregate_scope_day_status AS r ON r.day = t.day
    WHERE r.over_k AND t.active_users >= $k
      AND r.s1 <= t.s1 AND r.s2 <= t.s2 AND r.s3 <= t.s3 AND r.s4 <= t.s4 AND r.s5 <= t.s5 AND r.s6 <= t.s6
      AND (NOT (t.s1 = r.s1 AND t.s2 = r.s2 AND t.s3 = r.s3 AND t.s4 = r.s4 AND t.s5 = r.s5 AND t.s6 = r.s6)
               AND (t.active_users - greatest(r.dau, r.lines) < $k OR t.with_counts - least(r.dau, r.lines) < $k)
           -- The same sums, but the team's count holds a few more (members active on other surfaces).
           OR t.active_users - r.dau BETWEEN 1 AND $k - 1)
), near_count AS (
    SELECT DISTINCT t.scope, t.scope_name, t.day, t.team_id
    FROM teams AS t
    JOIN aggregate_scope_day_status AS r ON r.day = t.day
    WHERE r.over_k AND abs(t.active_users - r.dau) BETWEEN 1 AND $k - 1
)
SELECT t.scope, t.scope_name, t.day, t.team_id, t.active_users,
       coalesce(t.active_users >= $k, FALSE) AND NOT t.with_counts BETWEEN 1 AND $k - 1
           AND i.team_id IS NULL AND h.team_id IS NULL AND c.team_id IS NULL AND n.team_id IS NULL
           AS shown
FROM teams AS t
LEFT JOIN inside_scope AS i USING (scope, scope_name, day, team_id)
LEFT JOIN holds_scope AS h USING (scope, scope_name, day, team_id)
LEFT JOIN near_count AS c USING (scope, scope_name, day, team_id)
LEFT JOIN aggregate_nested_teams AS n USING (scope, scope_name, day, team_id)
