-- bi.adoption_phase_labels
-- Grain: one row per AI adoption phase_number. The service's own label of each phase, as its
-- documentation names them: the one place a phase's label is declared (bi.adoption_phases and
-- every query take it from here; a phase is never labelled by building text from its number).
-- The file name sorts before the views that read it.
CREATE OR REPLACE VIEW bi.adoption_phase_labels AS
SELECT phase_number, phase, meaning
FROM (VALUES (0, 'No Cohort', 'no cohort'),
             (1, 'Phase 1', 'code first'),
             (2, 'Phase 2', 'agent first'),
             (3, 'Phase 3', 'multi-agent')) AS labels(phase_number, phase, meaning);

COMMENT ON VIEW bi.adoption_phase_labels IS 'One row per AI adoption phase_number: the service''s label (No Cohort, Phase 1 .. Phase 3) and what the phase means.';
