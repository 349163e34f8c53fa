"""Known service incidents over days the emulator served: the days inside one are marked in
bi.service_incident_days and on the page, the days outside are not, and adding an incident is
one declaration that reaches the view, the serving database and the page."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest import ingest_report
from pipelines.page import render_page
from pipelines.publish.lake import publish
from pipelines.service import ReportRef, ServiceClient
from pipelines.warehouse import incidents, migrate
from pipelines.warehouse.incidents import INCIDENTS, Incident
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY

TODAY = date(2026, 11, 20)
APP_AS_CLI = "app-reported-as-cli-2026-09"
SDK = "ide-agent-sessions-via-sdk-2026-10"
MARKED = {date(2026, 9, 1): APP_AS_CLI, date(2026, 9, 30): APP_AS_CLI, date(2026, 10, 6): SDK, date(2026, 11, 10): SDK}
UNMARKED = (date(2026, 8, 31), date(2026, 10, 1), date(2026, 10, 5))
SCOPES = (("organization", "acme"), ("enterprise", "acme-corp"))
OUTAGE = Incident(
    "test-outage",
    date(2026, 8, 31),
    date(2026, 8, 31),
    False,
    ("organization",),
    ("daily_active_users",),
    "a day the test declares broken",
    "Said in a test <b>only</b>.",
)


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[duckdb.DuckDBPyConnection, Path]]:
    path = tmp_path_factory.mktemp("incidents")
    conn = duckdb.connect(str(path / "w.duckdb"))
    migrate(conn)
    config = EmulatorConfig(seed=3, users=20, today=TODAY, history_days=120)
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        for scope in SCOPES:
            for day in (*MARKED, *UNMARKED):
                for level in ("aggregate", "user"):
                    ingest_report(
                        client=client, ref=ReportRef(*scope, "1-day", level, day), conn=conn, raw_dir=path / "raw"
                    )
    yield conn, path
    conn.close()


def _marked(conn: duckdb.DuckDBPyConnection) -> dict[tuple[str, date], set[str]]:
    found: dict[tuple[str, date], set[str]] = {}
    for scope, day, incident in conn.execute("SELECT scope, day, incident_id FROM bi.service_incident_days").fetchall():
        found.setdefault((scope, day), set()).add(incident)
    return found


def test_the_days_of_a_known_incident_are_marked_and_no_others(landed) -> None:
    conn, _ = landed
    marked = _marked(conn)
    assert marked == {(scope, day): {incident} for scope, _ in SCOPES for day, incident in MARKED.items()}
    measures, said = conn.execute(
        "SELECT measures, service_said FROM bi.service_incident_days WHERE incident_id = ? LIMIT 1", [SDK]
    ).fetchone()
    assert "used_cli" in measures and "1.139.0" in said


def test_the_page_lists_the_incidents_of_its_days_with_the_days_it_shows(landed) -> None:
    conn, _ = landed
    page = render_page(conn)
    assert 'id="service-incidents"' in page
    assert f'data-incident="{APP_AS_CLI}"' in page and f'data-incident="{SDK}"' in page
    assert "2026-09-01 to 2026-09-30 (about)<br>2 days" in page
    assert "2026-10-06 to 2026-11-10 (about)<br>2 days" in page


def test_adding_an_incident_is_one_declaration_seen_in_the_view_the_serving_database_and_the_page(
    landed, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, path = landed
    monkeypatch.setattr(incidents, "INCIDENTS", (*INCIDENTS, OUTAGE))
    migrate(conn)
    assert _marked(conn)[("organization", date(2026, 8, 31))] == {"test-outage"}
    assert ("enterprise", date(2026, 8, 31)) not in _marked(conn)  # not a scope it names
    page = render_page(conn)
    assert 'data-incident="test-outage"' in page and "Said in a test &lt;b&gt;only&lt;/b&gt;." in page
    serving = path / "serving.duckdb"
    publish(conn, lake=path / "lake", serving=serving, full=True)
    with duckdb.connect(str(serving), read_only=True) as reader:
        assert reader.execute(
            "SELECT scope, day FROM bi.service_incident_days WHERE incident_id = 'test-outage'"
        ).fetchall() == [("organization", date(2026, 8, 31))]
    # Taken out of the declaration, it leaves the warehouse and the page at the next migrate.
    monkeypatch.setattr(incidents, "INCIDENTS", INCIDENTS)
    migrate(conn)
    assert all("test-outage" not in found for found in _marked(conn).values())
    assert "test-outage" not in render_page(conn)


def test_a_changed_declaration_replaces_the_held_incident(landed, monkeypatch: pytest.MonkeyPatch) -> None:
    conn, _ = landed
    moved = dataclasses.replace(INCIDENTS[0], first_day=date(2026, 8, 31))
    monkeypatch.setattr(incidents, "INCIDENTS", (moved, *INCIDENTS[1:]))
    migrate(conn)
    assert _marked(conn)[("enterprise", date(2026, 8, 31))] == {APP_AS_CLI}
    monkeypatch.setattr(incidents, "INCIDENTS", INCIDENTS)
    migrate(conn)
    assert ("enterprise", date(2026, 8, 31)) not in _marked(conn)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"first_day": date(2026, 10, 1), "last_day": date(2026, 9, 1)}, "is after"),
        ({"scopes": ("organisation",)}, "scopes"),
        ({"measures": ("daily_active_user",)}, "daily_active_user"),
    ],
)
def test_an_incident_that_would_mark_nothing_is_refused_where_it_is_declared(change, says) -> None:
    with pytest.raises(ValueError, match=says):
        dataclasses.replace(OUTAGE, **change)


def test_two_incidents_of_one_id_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(conn)
    monkeypatch.setattr(incidents, "INCIDENTS", (OUTAGE, dataclasses.replace(OUTAGE, summary="again")))
    with pytest.raises(ValueError, match="test-outage"):
        migrate(conn)
    conn.close()


WINDOW = [date(2026, 9, 1) + timedelta(days=n) for n in range(10)]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect(str(tmp_path_factory.mktemp("incident-days") / "w.duckdb"))
    migrate(conn)
    yield conn
    conn.close()


_DAY = st.sampled_from(WINDOW)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    declared=st.lists(
        st.tuples(_DAY, _DAY, st.sampled_from([("organization",), ("enterprise",), ("organization", "enterprise")])),
        max_size=3,
    ),
    landed=st.sets(st.tuples(st.sampled_from(["organization", "enterprise"]), _DAY), max_size=12),
)
def test_a_landed_day_is_marked_exactly_by_the_incidents_covering_its_scope_and_day(
    small: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch, declared, landed
) -> None:
    made = tuple(
        dataclasses.replace(OUTAGE, incident_id=f"i{n}", first_day=min(a, b), last_day=max(a, b), scopes=scopes)
        for n, (a, b, scopes) in enumerate(declared)
    )
    monkeypatch.setattr(incidents, "INCIDENTS", made)
    small.execute("DELETE FROM core.daily_totals")
    for scope, day in landed:
        small.execute(
            "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, agent_breakdown_present)"
            " VALUES (?, 'x', ?, '1-day', FALSE)",
            [scope, day],
        )
    migrate(small)
    expected = {
        (scope, day, i.incident_id)
        for scope, day in landed
        for i in made
        if i.first_day <= day <= i.last_day and scope in i.scopes
    }
    got = set(small.execute("SELECT scope, day, incident_id FROM bi.service_incident_days").fetchall())
    assert got == expected
