"""The templates of sql/metrics/ are filled with identifiers from the declarations only: a value
a person or an assistant gives (a filter, a scope) is never in the SQL text, always bound."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipelines.metrics._query import Shape, split
from pipelines.metrics.catalog import METRICS

LABELLED = frozenset({"agent", "team", "cost_center"})


@given(value=st.text(min_size=1))
def test_a_filter_s_value_is_bound_never_written_into_the_sql(value: str) -> None:
    metric = METRICS["agent_job_starts"]
    shape = Shape(metric, split(metric, [], {"agent": value}), LABELLED)
    identifiers = shape.identifiers({"agent": value})
    assert "$filter_agent" in identifiers["filters"]
    assert identifiers["filters"] == ' AND (CAST("agent" AS VARCHAR) = $filter_agent OR "agent_name" = $filter_agent)'


def test_an_answer_is_split_by_its_own_dimensions_those_asked_and_those_filtered() -> None:
    adoption, starts = METRICS["agent_adoption"], METRICS["agent_job_starts"]
    assert split(adoption, [], {}) == ("agent",)
    assert split(starts, [], {}) == ()
    assert split(starts, ["scope"], {"agent": "a-1"}) == ("agent",)
    shape = Shape(adoption, ("agent",), LABELLED)
    assert shape.columns == (
        "scope",
        "scope_name",
        "period_start",
        "period_end",
        "agent",
        "agent_name",
        "agent_adoption",
        "suppressed",
    )
