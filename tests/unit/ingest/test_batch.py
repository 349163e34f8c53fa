import graphql
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.config import Settings
from pipelines.ingest._batch import AdaptiveBatch
from pipelines.ingest.snapshots import SnapshotSettings
from pipelines.service.errors import ConfigError
from pipelines.service.repos import repository_stats_query


def test_stats_query_declares_typed_variables_per_alias():
    doc = graphql.parse(repository_stats_query(count=3))
    operation = next(d for d in doc.definitions if isinstance(d, graphql.OperationDefinitionNode))
    declared = {v.variable.name.value: graphql.print_ast(v.type) for v in operation.variable_definitions}
    assert declared == {f"{k}{i}": "String!" for i in range(3) for k in ("owner", "name")}
    aliases = [s.alias.value for s in operation.selection_set.selections]
    assert aliases == ["r0", "r1", "r2"]
    fragment = next(d for d in doc.definitions if isinstance(d, graphql.FragmentDefinitionNode))
    assert fragment.type_condition.name.value == "Repository"


def test_batch_halves_on_choke_and_stops_at_one():
    batch = AdaptiveBatch(maximum=50, grow_after=2)
    sizes = []
    while batch.choked():
        sizes.append(batch.size)
    assert sizes == [25, 12, 6, 3, 1]
    assert batch.size == 1


def test_batch_grows_back_toward_the_size_that_choked_without_reaching_it():
    batch = AdaptiveBatch(maximum=40, grow_after=2)
    batch.choked()
    batch.choked()
    assert batch.size == 10
    seen = []
    for _ in range(10):
        batch.succeeded()
        seen.append(batch.size)
    assert seen == [10, 15, 15, 17, 17, 18, 18, 19, 19, 19]


def test_batch_doubles_back_to_the_maximum_once_the_choke_is_forgotten():
    batch = AdaptiveBatch(maximum=40, grow_after=1)
    batch.choked()
    sizes = [batch.size]
    for _ in range(55):
        batch.succeeded()
        sizes.append(batch.size)
    assert max(sizes[:50]) < 40
    assert sizes[-1] == 40


def test_fixed_server_limit_costs_few_failures():
    limit = 20
    batch = AdaptiveBatch(maximum=50, grow_after=2)
    failures = 0
    for _ in range(30):
        if batch.size > limit:
            failures += 1
            batch.choked()
        else:
            batch.succeeded()
    assert failures <= 3
    assert batch.size <= limit


@given(st.integers(1, 200), st.integers(1, 5), st.lists(st.booleans(), max_size=60))
def test_batch_size_stays_within_bounds(maximum, grow_after, outcomes):
    batch = AdaptiveBatch(maximum=maximum, grow_after=grow_after)
    for ok in outcomes:
        batch.succeeded() if ok else batch.choked()
        assert 1 <= batch.size <= maximum


def test_batch_rejects_a_zero_maximum():
    with pytest.raises(ValueError):
        AdaptiveBatch(maximum=0, grow_after=1)


def test_settings_come_from_service_org_and_repos():
    settings = Settings(orgs=("acme",), repos=("acme/api", "acme/web"))
    assert SnapshotSettings.from_settings(settings) == SnapshotSettings(
        orgs=("acme",), repositories=("acme/api", "acme/web")
    )


def test_settings_without_an_organization_are_refused():
    with pytest.raises(ConfigError, match="SERVICE_ORG"):
        SnapshotSettings.from_settings(Settings())
