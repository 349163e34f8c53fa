-- core.credit_team_sets for a scope's days $start_day..$end_day: the users of the scope's report
-- with AI credits (ai_credits_used not 0) grouped by what bi.chargeback_by_team splits and holds
-- them by: the teams they were on that day (the scope's, and for an enterprise its users' teams
-- in organizations) and, for an enterprise, the organizations whose report they were in. Per
-- group: the users with credits above 0 and their credits, and all the group's credits. A split
-- of a user's credits between up to 16 teams is exact in the view's units, so a group's is its
-- users' sum; a user on more than 16 teams is a group alone (`alone`, a number of their own that
-- day, never their id), split as one.
-- An organization's landing changes the enterprise rows of its days: those are computed again.
DELETE FROM core.credit_team_sets
 WHERE $scope = 'organization' AND scope = 'enterprise' AND day BETWEEN $start_day AND $end_day;

INSERT INTO core.credit_team_sets BY NAME
WITH lines AS (
    SELECT scope, scope_name, day, user_id, CAST(ai_credits_used AS DECIMAL(38, 6)) AS credits
      FROM core.user_daily_totals
     WHERE day BETWEEN $start_day AND $end_day AND coalesce(ai_credits_used, 0) <> 0
       AND ((scope = $scope AND scope_name = $scope_name) OR ($scope = 'organization' AND scope = 'enterprise'))
), teams AS (
    SELECT l.scope, l.scope_name, l.day, l.user_id,
           list({'team_scope': m.scope, 'team_scope_name': m.scope_name, 'team_id': m.team_id}
                ORDER BY m.scope, m.scope_name, m.team_id) AS teams,
           count(*) FILTER (WHERE m.scope = l.scope AND m.scope_name = l.scope_name) AS scope_teams
      FROM lines AS l
      JOIN core.user_team_days AS m
        ON m.day = l.day AND m.user_id = l.user_id
       AND ((m.scope = l.scope AND m.scope_name = l.scope_name) OR (l.scope = 'enterprise' AND m.scope = 'organization'))
     WHERE m.day BETWEEN $start_day AND $end_day
     GROUP BY ALL
), organizations AS (
    SELECT l.scope, l.scope_name, l.day, l.user_id, list(o.scope_name ORDER BY o.scope_name) AS organizations
      FROM lines AS l
      JOIN core.user_daily_totals AS o ON o.scope = 'organization' AND o.day = l.day AND o.user_id = l.user_id
     WHERE l.scope = 'enterprise' AND o.day BETWEEN $start_day AND $end_day
     GROUP BY ALL
), users AS (
    SELECT l.scope, l.scope_name, l.day, l.user_id,
           coalesce(t.teams, []) AS teams, coalesce(t.scope_teams, 0) AS scope_teams,
           coalesce(o.organizations, []) AS organizations, l.credits
      FROM lines AS l
      LEFT JOIN teams AS t USING (scope, scope_name, day, user_id)
      LEFT JOIN organizations AS o USING (scope, scope_name, day, user_id)
), numbered AS (
    -- Only the users on more than 16 teams are numbered (a window over every user would cost the landing).
    SELECT scope, scope_name, day, teams, scope_teams, organizations, 0 AS alone, credits
      FROM users
     WHERE len(teams) <= 16
    UNION ALL
    SELECT scope, scope_name, day, teams, scope_teams, organizations,
           row_number() OVER (PARTITION BY scope, scope_name, day, teams, organizations ORDER BY credits, user_id),
           credits
      FROM users
     WHERE len(teams) > 16
), sets AS (
    SELECT scope, scope_name, day, teams, scope_teams, organizations, alone,
           count(*) FILTER (WHERE credits > 0) AS credited_users,
           coalesce(sum(credits) FILTER (WHERE credits > 0), 0) AS credited_ai_credits,
           sum(credits) AS ai_credits
      FROM numbered
     GROUP BY ALL
)
SELECT scope, scope_name, day,
       row_number() OVER (PARTITION BY scope, scope_name, day ORDER BY teams, organizations, alone)
           AS team_set,
       teams, scope_teams, organizations, alone, credited_users, credited_ai_credits, ai_credits
  FROM sets;
