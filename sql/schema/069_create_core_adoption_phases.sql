-- One row per scope, day and AI adoption phase of the aggregate report's
-- totals_by_ai_adoption_phase (May 2026): phase 0 no cohort, 1 code first, 2 agent first,
-- 3 multi-agent. The entry's members (users, the per-phase averages) are columns declared in
-- pipelines/transform/schema.py (ADOPTION_PHASE_ENTRY), which `migrate` adds: the averages are
-- per user of the phase, never to be summed across phases or days. No primary key, as the
-- other facts: the grain check holds it (a key would slow the landing's delete and insert).
CREATE TABLE core.adoption_phases (
    scope         VARCHAR NOT NULL,
    scope_name    VARCHAR NOT NULL,
    day           DATE NOT NULL,
    phase_number  BIGINT NOT NULL,
    report_kind   VARCHAR NOT NULL,
    fetched_at    TIMESTAMPTZ NOT NULL,
    is_final      BOOLEAN
);
