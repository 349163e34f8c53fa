"""The gap and finality rules the catalog's declarations share, in the words an answer carries."""

DAY_GAPS = "A day whose report did not land for the scope is a gap: NULL, named in gaps, never zero."
AGENT_GAPS = (
    "A day whose report did not land or did not carry the agent array is a gap: NULL, named in gaps, never "
    "zero; an app missing from a day that carried the array had none that day."
)
TEAM_GAPS = (
    "A day without team data for the scope (no user-teams report) is a gap: NULL, named in gaps, never zero; "
    "a team missing from a day with team data had no member active that day."
)
PERIOD_GAPS = (
    "A period's figure covers the days of it whose report landed; the days that did not are named in gaps, "
    "never counted as zero."
)
USER_GAPS = (
    "A day without the scope's user-level report is a gap: NULL, named in gaps, never zero; a person "
    "missing from a day that landed had no activity that day."
)
DAY_FINALITY = (
    "A day fetched before it was final (three full UTC days after it) is provisional, still filling in: "
    "named in provisional, and never a compared day of a comparison."
)
PERIOD_FINALITY = (
    "A period holding days fetched before they were final is still filling in: those days are named in "
    "provisional, and a comparison weighs final days only."
)
