"""`metrics-etl forget` of a billed person, over loopback against the emulator: their export lines
(rows and archived CSV lines), budget user states and cost-center membership go, by the catalog's
person declarations; every other person's rows and lines stay, and so does the bill
(billing.credit_usage, the scope's aggregate); the next export run leaves them out again."""

from __future__ import annotations

from pathlib import Path

import duckdb
import zstandard

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest.billing import ingest_billing
from pipelines.ingest.billing_exports import ingest_exports
from pipelines.ingest.billing_state import run_billing_state
from pipelines.privacy.forget import Places, forget
from pipelines.service import ServiceClient
from pipelines.warehouse.erasure import load_forgotten
from tests._emulator import settings_for

from .conftest import FAST_RETRY, TODAY

KEY = "a-test-pseudonym-key-of-some-length"
PERSON_TABLES = ("billing.user_usage", "billing.budget_user_states")


def _export_lines(raw: Path) -> list[str]:
    lines = []
    for path in sorted(raw.rglob("*.zst")):
        with path.open("rb") as archived:
            lines += zstandard.ZstdDecompressor().stream_reader(archived).read().decode().splitlines()[1:]
    return lines


def _named(conn: duckdb.DuckDBPyConnection, login: str) -> dict[str, int]:
    counts = {
        name: conn.execute(f"SELECT count(*) FROM {name} WHERE lower(user_login) = ?", [login]).fetchall()[0][0]
        for name in PERSON_TABLES
    }
    counts["billing.cost_center_resources"] = conn.execute(
        "SELECT count(*) FROM billing.cost_center_resources WHERE resource_type = 'User' AND lower(resource_name) = ?",
        [login],
    ).fetchall()[0][0]
    return counts


def _all(conn: duckdb.DuckDBPyConnection) -> dict[str, int]:
    names = (*PERSON_TABLES, "billing.cost_center_resources")
    return {name: conn.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0] for name in names}


def test_forget_removes_a_person_s_billing_rows_and_export_lines_and_nothing_else(conn, tmp_path):
    places = Places(
        raw_dir=tmp_path / "raw",
        spool_dir=tmp_path / "spool",
        etag_cache=None,
        lake=tmp_path / "lake",
        serving=tmp_path / "serving.duckdb",
        aggregate_k=5,
    )
    with running_emulator(EmulatorConfig(seed=11, users=12, today=TODAY)) as emu:
        enterprise, org = emu.credentials["enterprise"], emu.credentials["org"]
        settings = settings_for(emu, enterprises=(enterprise,))
        with ServiceClient(config=settings.service_config(), retry=FAST_RETRY) as client:
            run_billing_state(client, conn, enterprises=(enterprise,), orgs=(org,), day=TODAY)
            ingest_exports(client, conn, enterprises=(enterprise,), raw_dir=places.raw_dir, months=2, sleep=lambda s: 0)
            ingest_billing(client, conn, scopes=[("enterprise", enterprise)], months=1, say=lambda line: None)
        # A person in the exports, a budget's user states and a cost center.
        (login,) = conn.execute(
            "SELECT lower(u.user_login) FROM billing.user_usage AS u"
            " JOIN billing.budget_user_states AS s ON lower(s.user_login) = lower(u.user_login)"
            " JOIN billing.cost_center_resources AS r ON r.resource_type = 'User'"
            "  AND lower(r.resource_name) = lower(u.user_login) ORDER BY 1 LIMIT 1"
        ).fetchall()[0]
        theirs, before = _named(conn, login), _all(conn)
        assert all(theirs.values()), theirs
        bill = conn.execute("SELECT sum(net_amount), count(*) FROM billing.credit_usage").fetchall()
        lines = _export_lines(places.raw_dir)
        their_lines = [line for line in lines if line.split(",")[1].lower() == login]
        assert their_lines

        forget(conn, login, key=KEY, places=places)

        assert set(_named(conn, login).values()) == {0}
        assert _all(conn) == {name: count - theirs[name] for name, count in before.items()}
        assert conn.execute("SELECT sum(net_amount), count(*) FROM billing.credit_usage").fetchall() == bill
        assert _export_lines(places.raw_dir) == [line for line in lines if line not in their_lines]

        # The service still bills them: the next run lands every other line, never theirs.
        with ServiceClient(config=settings.service_config(), retry=FAST_RETRY) as client:
            again = ingest_exports(
                client,
                conn,
                enterprises=(enterprise,),
                raw_dir=places.raw_dir,
                months=2,
                refetch=True,
                forgotten=load_forgotten(conn, KEY),
                sleep=lambda s: 0,
            )
    assert again.months == 2
    assert _named(conn, login)["billing.user_usage"] == 0
    assert not [line for line in _export_lines(places.raw_dir) if line.split(",")[1].lower() == login]
