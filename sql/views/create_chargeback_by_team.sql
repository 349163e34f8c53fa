-- bi.chargeback_by_team
-- Grain: one row per scope, scope_name, day, team and rule, and at most one 'unallocated' row a
-- scope-day (team_id NULL). A day's bill (bi.cost_daily's net) charged to teams by one declared
-- rule, in this order:
--   1. rule 'cost center': each cost center's net that day (billing.cost_center_usage, an
--      enterprise's) goes to its teams, from its resources on the enterprise's newest snapshot
--      of cost centers (billing.cost_centers, with billing.cost_center_resources of that day; a
--      cost center not on it has none): a Team resource is that enterprise team, a User
--      resource the teams the user was on that day (its login in any spelling, bi.login_key),
--      an Organization resource that organization's teams that day (core.user_team_days). It is split by each team's share of
--      the AI credits the usage reports gave its members that day (core.user_daily_totals of the
--      bill's scope, ai_credits_used), a member on k of the cost center's teams counting 1/k on
--      each; equally between its teams when none of them reported credits.
--   2. rule 'credit share': what no cost center holds (the bill less the cost centers' nets:
--      a whole organization's bill, whose scope has no cost centers) goes to users by their
--      share of the day's reported AI credits, of the users no cost center holds (not a User
--      resource, not on a Team resource's team, not in an Organization resource's report that
--      day), and a user's part to the teams they were on that day, split equally: a user on two
--      teams is half on each, never counted twice.
--   3. 'unallocated' is the rest, computed as the remainder (the bill less every allocation), so
--      a scope-day's rows add up to its bill in bi.cost_daily exactly. reason says why: a cost
--      center none of whose resources is on a listed team that day, a cost center not on the
--      newest snapshot, a credit (negative net) of a cost center or in no cost center (an
--      organization's refund), usage of users on no team, no usage signal (no credits reported),
--      cost centers that add up to more than the bill (a credit outside them, or fetched at
--      different times), no user-level report landed that day, and the allocations' rounding
--      down to $0.000001 (bi.micro, _money.sql), so no team is ever charged more than its share.
-- Teams are listed by the user-teams report (teams under 5 members are not), so usage of people
-- on no listed team is unallocated, not guessed. team is the team's latest slug (core.dim_team).
-- Members and credits come from core.credit_team_sets (users with credits grouped by their teams,
-- organizations' teams and reports, a rollup), never a year of user rows: only the users a User
-- resource names are read (their teams and credits), so the cost grows with teams and days.
-- bi.chargeback_between(start_day, end_day) is the rows of those days (team_scope and
-- team_scope_name say whose team_id it is): a day's rows read that day's bill, teams, credits and
-- reports alone, besides the newest snapshot of cost centers and the teams' latest slugs, so each
-- day-keyed table is read for those days only. The view reads every day's through
-- bi.chargeback_rows(): here, all computed; in the serving database, the rows each publish keeps
-- in billing.team_chargeback for the days whose inputs changed (pipelines/warehouse/chargeback.py,
-- sql/serving/chargeback_rows.sql), so a read there allocates nothing again.
CREATE OR REPLACE MACRO bi.chargeback_between(start_day, end_day) AS TABLE
WITH settings AS (
    -- A user's credits are split between their teams in whole units of 1/720720 of a
    -- millionth of a credit: 720720 is the least multiple of 1..16, so up to 16 teams divide it
    -- evenly (more only round down, into the unallocated row).
    SELECT CAST(720720 AS HUGEINT) AS split_units
), bills AS (
    SELECT scope, scope_name, day, sum(net_amount) AS bill
    FROM billing.credit_usage
    WHERE day BETWEEN start_day AND end_day
    GROUP BY ALL
), centers AS (
    -- Each cost center's net a day, on days with a bill.
    SELECT u.scope, u.scope_name, u.day, u.cost_center_id, bi.micro(sum(u.net_amount)) AS net
    FROM billing.cost_center_usage AS u
    JOIN bills AS b USING (scope, scope_name, day)
    WHERE u.cost_center_id <> 'none' AND u.day BETWEEN start_day AND end_day
    GROUP BY ALL
), names AS (
    SELECT c.enterprise, c.cost_center_id, c.name
    FROM billing.cost_centers AS c
    JOIN (SELECT enterprise, max(snapshot_day) AS snapshot_day FROM billing.cost_centers GROUP BY ALL) AS n
      USING (enterprise, snapshot_day)
), resources AS (
    -- The resources of the newest snapshot of cost centers (the two land together from one
    -- listing): a snapshot whose cost centers list no resource has none, never an older one's.
    -- A User resource by its login key (bi.login_key): the bill and the reports may spell it apart.
    SELECT r.enterprise, r.cost_center_id, r.resource_type,
           CASE r.resource_type WHEN 'User' THEN bi.login_key(r.resource_name) ELSE r.resource_name END
               AS resource_name
    FROM billing.cost_center_resources AS r
    JOIN (SELECT enterprise, max(snapshot_day) AS snapshot_day FROM billing.cost_centers GROUP BY ALL) AS n
      USING (enterprise, snapshot_day)
), center_resources AS (
    SELECT c.*, r.resource_type, r.resource_name
    FROM centers AS c
    JOIN resources AS r ON c.scope = 'enterprise' AND r.enterprise = c.scope_name AND r.cost_center_id = c.cost_center_id
), center_teams AS (
    -- The teams of each cost center a day, (team_scope, team_scope_name, team_id): from the
    -- listed teams of the day (core.team_days, a few rows a day) where a resource names a team or
    -- an organization; only a User resource reads memberships, its users' alone. One equi-join
    -- per kind: a join on alternatives would compare every pair of a day.
    SELECT c.scope, c.scope_name, c.day, c.cost_center_id, t.scope AS team_scope, t.scope_name AS team_scope_name,
           t.team_id
    FROM center_resources AS c
    JOIN core.team_days AS t
      ON c.resource_type = 'Team' AND t.scope = c.scope AND t.scope_name = c.scope_name AND t.day = c.day
     AND t.slug = c.resource_name
    WHERE t.day BETWEEN start_day AND end_day
    UNION
    -- A Team resource by the team's latest slug (renamed since the day).
    SELECT c.scope, c.scope_name, c.day, c.cost_center_id, t.scope, t.scope_name, t.team_id
    FROM center_resources AS c
    JOIN core.dim_team AS d
      ON c.resource_type = 'Team' AND d.scope = c.scope AND d.scope_name = c.scope_name AND d.slug = c.resource_name
    JOIN core.team_days AS t
      ON t.scope = d.scope AND t.scope_name = d.scope_name AND t.team_id = d.team_id AND t.day = c.day
    WHERE t.day BETWEEN start_day AND end_day
    UNION
    SELECT c.scope, c.scope_name, c.day, c.cost_center_id, m.scope, m.scope_name, m.team_id
    FROM center_resources AS c
    JOIN core.user_team_days AS m
      ON c.resource_type = 'User' AND m.scope = c.scope AND m.scope_name = c.scope_name AND m.day = c.day
     AND bi.login_key(m.user_login) = c.resource_name
    WHERE m.day BETWEEN start_day AND end_day
    UNION
    SELECT c.scope, c.scope_name, c.day, c.cost_center_id, t.scope, t.scope_name, t.team_id
    FROM center_resources AS c
    JOIN core.team_days AS t
      ON c.resource_type = 'Organization' AND t.scope = 'organization' AND t.scope_name = c.resource_name
     AND t.day = c.day
    WHERE t.day BETWEEN start_day AND end_day
), sets AS (
    -- The users with credits a day, grouped by their teams (and an enterprise's by their
    -- organizations' teams and reports): core.credit_team_sets, a few rows a team-day, never user rows.
    SELECT scope, scope_name, day, team_set, scope_teams, organizations, credited_users,
           bi.micro(credited_ai_credits) AS credited, bi.micro(ai_credits) AS credits
    FROM core.credit_team_sets
    WHERE day BETWEEN start_day AND end_day
), set_teams AS (
    SELECT scope, scope_name, day, team_set, unnest(teams, recursive := true)
    FROM core.credit_team_sets
    WHERE day BETWEEN start_day AND end_day
), center_set_rows AS (
    SELECT t.scope, t.scope_name, t.day, t.cost_center_id, t.team_scope, t.team_scope_name, t.team_id, s.team_set
    FROM center_teams AS t
    JOIN set_teams AS s USING (scope, scope_name, day, team_scope, team_scope_name, team_id)
), center_set_teams AS (
    -- On how many of the cost center's teams each set's members are.
    SELECT scope, scope_name, day, cost_center_id, team_set, count(*) AS teams_of_user
    FROM center_set_rows
    GROUP BY ALL
), center_team_weights AS (
    -- A team's weight: its members' credits that day (the bill scope's report), each member's
    -- split between their teams of the cost center in whole units (split_units): a set's credits
    -- split as its users' are (core.credit_team_sets). Every team of the cost center has members
    -- (core.team_days is its memberships'), those without credits weighing 0.
    SELECT t.scope, t.scope_name, t.day, t.cost_center_id, t.team_scope, t.team_scope_name, t.team_id,
           coalesce(sum(g.credits * s.split_units // n.teams_of_user), 0) AS weight
    FROM center_teams AS t
    CROSS JOIN settings AS s
    LEFT JOIN center_set_rows AS r USING (scope, scope_name, day, cost_center_id, team_scope, team_scope_name, team_id)
    LEFT JOIN center_set_teams AS n USING (scope, scope_name, day, cost_center_id, team_set)
    LEFT JOIN sets AS g USING (scope, scope_name, day, team_set)
    GROUP BY t.scope, t.scope_name, t.day, t.cost_center_id, t.team_scope, t.team_scope_name, t.team_id
), center_weights AS (
    SELECT scope, scope_name, day, cost_center_id, sum(weight) AS weight, count(*) AS teams
    FROM center_team_weights
    GROUP BY ALL
), center_shares AS (
    -- By credits: net * the team's weight / the cost center's, rounded down; with no credits on
    -- any of its teams, equally.
    SELECT t.scope, t.scope_name, t.day, t.team_scope, t.team_scope_name, t.team_id,
           CASE WHEN w.weight > 0 THEN c.net * t.weight // w.weight ELSE c.net // w.teams END AS amount,
           CASE WHEN w.weight > 0 THEN c.net * t.weight % w.weight ELSE c.net % w.teams END <> 0 AS rounded
    FROM center_team_weights AS t
    JOIN center_weights AS w USING (scope, scope_name, day, cost_center_id)
    JOIN centers AS c USING (scope, scope_name, day, cost_center_id)
    WHERE c.net > 0
), outside AS (
    -- What no cost center holds: the bill less the cost centers' nets.
    SELECT b.scope, b.scope_name, b.day, bi.micro(b.bill) - coalesce(sum(c.net), 0) AS net,
           count(c.cost_center_id) AS centers
    FROM bills AS b
    LEFT JOIN centers AS c USING (scope, scope_name, day)
    GROUP BY b.scope, b.scope_name, b.day, b.bill
), held_teams AS (
    -- A cost center with a Team resource holds the members of each of its teams.
    SELECT DISTINCT t.scope, t.scope_name, t.day, t.team_scope, t.team_scope_name, t.team_id
    FROM center_teams AS t
    JOIN center_resources AS c USING (scope, scope_name, day, cost_center_id)
    WHERE c.resource_type = 'Team'
), held_sets AS (
    -- The sets a cost center holds that day: on a held team, or in an Organization resource's report.
    SELECT s.scope, s.scope_name, s.day, s.team_set
    FROM set_teams AS s
    JOIN held_teams AS h USING (scope, scope_name, day, team_scope, team_scope_name, team_id)
    UNION
    SELECT g.scope, g.scope_name, g.day, g.team_set
    FROM (SELECT scope, scope_name, day, team_set, unnest(organizations) AS organization FROM sets) AS g
    JOIN center_resources AS c
      ON c.resource_type = 'Organization' AND c.scope = g.scope AND c.scope_name = g.scope_name AND c.day = g.day
     AND c.resource_name = g.organization
), resource_users AS (
    -- The users a User resource holds, with credits that day (the bill scope's report): the only
    -- user rows the view reads.
    SELECT DISTINCT c.scope, c.scope_name, c.day, k.user_id, bi.micro(k.ai_credits_used) AS credits
    FROM center_resources AS c
    JOIN core.user_daily_totals AS k
      ON c.resource_type = 'User' AND k.scope = c.scope AND k.scope_name = c.scope_name AND k.day = c.day
     AND bi.login_key(k.user_login) = c.resource_name
    WHERE k.ai_credits_used > 0 AND k.day BETWEEN start_day AND end_day
), resource_user_teams AS (
    -- Their teams, as their set has them: the bill scope's and, an enterprise's, organizations'.
    SELECT u.scope, u.scope_name, u.day, u.user_id, m.scope AS team_scope, m.scope_name AS team_scope_name, m.team_id
    FROM resource_users AS u
    JOIN core.user_team_days AS m
      ON m.day = u.day AND m.user_id = u.user_id
     AND ((m.scope = u.scope AND m.scope_name = u.scope_name) OR (u.scope = 'enterprise' AND m.scope = 'organization'))
    WHERE m.day BETWEEN start_day AND end_day
), resource_users_alone AS (
    -- Those a User resource alone holds: their set is not held already, so it still counts them.
    SELECT u.scope, u.scope_name, u.day, u.user_id, u.credits,
           count(t.team_id) FILTER (WHERE t.team_scope = u.scope AND t.team_scope_name = u.scope_name) AS scope_teams
    FROM resource_users AS u
    LEFT JOIN resource_user_teams AS t USING (scope, scope_name, day, user_id)
    WHERE NOT EXISTS (
        SELECT 1 FROM resource_user_teams AS r
        JOIN held_teams AS h USING (scope, scope_name, day, team_scope, team_scope_name, team_id)
        WHERE r.scope = u.scope AND r.scope_name = u.scope_name AND r.day = u.day AND r.user_id = u.user_id)
      AND NOT EXISTS (
        SELECT 1 FROM center_resources AS c
        JOIN core.user_daily_totals AS o ON o.scope = 'organization' AND o.scope_name = c.resource_name AND o.day = c.day
        WHERE c.resource_type = 'Organization' AND c.scope = u.scope AND c.scope_name = u.scope_name
          AND c.day = u.day AND o.user_id = u.user_id AND o.day BETWEEN start_day AND end_day)
    GROUP BY ALL
), outside_sets AS (
    -- The sets no cost center holds, with credits that day.
    SELECT g.scope, g.scope_name, g.day, g.team_set, g.scope_teams, g.credited_users, g.credited
    FROM sets AS g
    JOIN outside AS o USING (scope, scope_name, day)
    LEFT JOIN held_sets AS h USING (scope, scope_name, day, team_set)
    WHERE h.team_set IS NULL AND g.credited_users > 0
), outside_days AS (
    -- A day's weight: every outside user's credits (those on no team keep theirs unallocated):
    -- the sets', less the users a User resource holds.
    SELECT p.scope, p.scope_name, p.day, sum(p.credits * s.split_units) AS weight, sum(p.users) AS users,
           coalesce(sum(p.users) FILTER (WHERE p.scope_teams > 0), 0) AS users_on_teams
    FROM (
        SELECT scope, scope_name, day, scope_teams, credited_users AS users, credited AS credits FROM outside_sets
        UNION ALL
        SELECT u.scope, u.scope_name, u.day, u.scope_teams, -1, -u.credits
        FROM resource_users_alone AS u
        JOIN outside AS o USING (scope, scope_name, day)
    ) AS p
    CROSS JOIN settings AS s
    GROUP BY ALL
    HAVING sum(p.users) > 0
), outside_team_weights AS (
    -- A team's weight: its members' credits, each split between the member's teams of the bill scope.
    SELECT p.scope, p.scope_name, p.day, p.scope AS team_scope, p.scope_name AS team_scope_name, p.team_id,
           sum(p.weight) AS weight
    FROM (
        SELECT g.scope, g.scope_name, g.day, t.team_id, g.credited * s.split_units // g.scope_teams AS weight
        FROM outside_sets AS g
        JOIN set_teams AS t USING (scope, scope_name, day, team_set)
        CROSS JOIN settings AS s
        WHERE t.team_scope = g.scope AND t.team_scope_name = g.scope_name
        UNION ALL
        SELECT u.scope, u.scope_name, u.day, t.team_id, -(u.credits * s.split_units // u.scope_teams)
        FROM resource_users_alone AS u
        JOIN resource_user_teams AS t USING (scope, scope_name, day, user_id)
        CROSS JOIN settings AS s
        WHERE t.team_scope = u.scope AND t.team_scope_name = u.scope_name
    ) AS p
    GROUP BY ALL
    HAVING sum(p.weight) > 0
), outside_shares AS (
    SELECT t.scope, t.scope_name, t.day, t.team_scope, t.team_scope_name, t.team_id,
           o.net * t.weight // d.weight AS amount, o.net * t.weight % d.weight <> 0 AS rounded
    FROM outside_team_weights AS t
    JOIN outside_days AS d USING (scope, scope_name, day)
    JOIN outside AS o USING (scope, scope_name, day)
    WHERE o.net > 0
), allocated AS (
    SELECT scope, scope_name, day, team_scope, team_scope_name, team_id, 'cost center' AS rule, sum(amount) AS amount,
           bool_or(rounded) AS rounded
    FROM center_shares
    GROUP BY ALL
    UNION ALL
    SELECT scope, scope_name, day, team_scope, team_scope_name, team_id, 'credit share', sum(amount), bool_or(rounded)
    FROM outside_shares
    GROUP BY ALL
), reported AS (
    -- The scope-days whose user-level usage report landed: the credits and teams to allocate by.
    SELECT DISTINCT scope, scope_name, day FROM core.user_report_days WHERE day BETWEEN start_day AND end_day
), causes AS (
    -- Why part of a scope-day is unallocated, one text each.
    SELECT b.scope, b.scope_name, b.day,
           'no user-level usage report of this day landed: no credits or teams to allocate by' AS cause
    FROM bills AS b
    LEFT JOIN reported AS r USING (scope, scope_name, day)
    WHERE r.day IS NULL
    UNION ALL
    SELECT c.scope, c.scope_name, c.day,
           CASE WHEN n.cost_center_id IS NULL
                    THEN 'cost center ' || c.cost_center_id || ': not on the newest snapshot of cost centers, so '
                         || 'no resources to charge teams by'
                ELSE 'cost center ' || coalesce(n.name, c.cost_center_id) || ': none of its teams, users or '
                     || 'organizations is on a listed team that day'
           END
    FROM centers AS c
    JOIN reported AS r USING (scope, scope_name, day)
    LEFT JOIN center_weights AS w USING (scope, scope_name, day, cost_center_id)
    LEFT JOIN names AS n ON n.enterprise = c.scope_name AND n.cost_center_id = c.cost_center_id
    WHERE c.net > 0 AND w.teams IS NULL
    UNION ALL
    SELECT c.scope, c.scope_name, c.day,
           'cost center ' || coalesce(n.name, c.cost_center_id) || ': a credit (negative net) is charged to no team'
    FROM centers AS c
    LEFT JOIN names AS n ON n.enterprise = c.scope_name AND n.cost_center_id = c.cost_center_id
    WHERE c.net < 0
    UNION ALL
    SELECT o.scope, o.scope_name, o.day,
           CASE WHEN o.net < 0 AND o.centers = 0
                    THEN 'a credit (negative net) in no cost center is charged to no team: nothing to allocate a '
                         || 'refund by'
                WHEN o.net < 0
                    THEN 'the cost centers add up to more than the bill (a credit outside them, or fetched at '
                         || 'different times)'
                WHEN d.day IS NULL
                    THEN 'usage in no cost center with no usage signal: no user outside the cost centers reported '
                         || 'AI credits that day'
                ELSE 'usage in no cost center of users on no listed team'
           END
    FROM outside AS o
    LEFT JOIN reported AS r USING (scope, scope_name, day)
    LEFT JOIN outside_days AS d USING (scope, scope_name, day)
    WHERE o.net < 0 OR (o.net > 0 AND r.day IS NOT NULL AND (d.day IS NULL OR d.users_on_teams < d.users))
    UNION ALL
    SELECT scope, scope_name, day, 'allocations rounded down to $0.000001'
    FROM allocated
    WHERE rounded
), reasons AS (
    SELECT scope, scope_name, day, string_agg(DISTINCT cause, '. ' ORDER BY cause) AS reason
    FROM causes
    GROUP BY ALL
), allocated_days AS (
    SELECT scope, scope_name, day, bi.from_micro(sum(amount)) AS amount
    FROM allocated
    GROUP BY ALL
)
SELECT a.scope, a.scope_name, a.day, a.team_scope, a.team_scope_name, a.team_id, a.rule,
       CAST(NULL AS VARCHAR) AS reason, bi.from_micro(a.amount) AS net_amount
FROM allocated AS a
WHERE a.amount > 0
UNION ALL
SELECT b.scope, b.scope_name, b.day, NULL, NULL, NULL, 'unallocated', r.reason,
       CAST(b.bill - coalesce(a.amount, 0) AS DECIMAL(38, 6))
FROM bills AS b
LEFT JOIN allocated_days AS a USING (scope, scope_name, day)
LEFT JOIN reasons AS r USING (scope, scope_name, day)
WHERE b.bill - coalesce(a.amount, 0) <> 0;

CREATE OR REPLACE MACRO bi.chargeback_rows() AS TABLE
SELECT * FROM bi.chargeback_between(DATE '0001-01-01', DATE '9999-12-31');

-- Every day's rows, each team named by its latest slug (core.dim_team).
CREATE OR REPLACE VIEW bi.chargeback_by_team AS
SELECT c.scope, c.scope_name, c.day, c.team_id,
       CASE WHEN c.team_id IS NULL THEN 'unallocated' ELSE coalesce(d.slug, CAST(c.team_id AS VARCHAR)) END AS team,
       c.rule, c.reason, c.net_amount
FROM bi.chargeback_rows() AS c
LEFT JOIN core.dim_team AS d ON d.scope = c.team_scope AND d.scope_name = c.team_scope_name AND d.team_id = c.team_id;

COMMENT ON VIEW bi.chargeback_by_team IS 'One row per scope, day, team and rule (cost center, credit share) and one unallocated row with its reasons: the day''s bill charged to teams by cost-center membership, else by each user''s share of the reported AI credits (a user on two teams split, never counted twice), and the rows of a scope-day add up to its bill in bi.cost_daily exactly.';
