"""The serving database opens in the newest DuckDB 1.x, which BI drivers embed, and answers as in
the project's DuckDB: every bi view read whole, every lake table view's row count and the
change-rule macros, in a 1.x environment of its own (made once with uv, then re-used) against
the home `metrics-etl run` published from the emulator."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from contextlib import suppress
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipelines.publish._serving import STORAGE_VERSION
from pipelines.publish.aggregate import AGGREGATE_TABLES, aggregate_serving
from tests.e2e import _serving_reads
from tests.e2e.conftest import Reference
from tests.integration.bi.test_views_on_known_data import VIEWS

REPO = Path(__file__).resolve().parents[2]
DUCKDB_1X = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["metrics-etl"]["duckdb-1x"]
UV = Path(sys.executable).parent / "uv"
# Beside the venv running the tests, so every run (and worktree) sharing it re-uses it.
ENVIRONMENT = Path(sys.prefix) / f"duckdb-{DUCKDB_1X}"


def _uv(*args: str) -> None:
    done = subprocess.run([str(UV), *args], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        # uv's first line says what failed, its last the innermost cause (connection refused, …).
        said = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        cause = " / ".join(dict.fromkeys([said[0], said[-1]])) if said else f"exit {done.returncode}"
        pytest.fail(
            f"uv could not make the DuckDB {DUCKDB_1X} environment (is the package index reachable?): {cause}",
            pytrace=False,
        )


def duckdb_1x() -> Path:
    """The Python of an environment holding DuckDB 1.x (and pytz, which its client needs for
    TIMESTAMPTZ values), made under a temporary name and renamed into place when complete."""
    python = ENVIRONMENT / "bin" / "python"
    if python.exists():
        return python
    if not UV.exists():
        pytest.fail(f"no uv next to {sys.executable}: run `make install`", pytrace=False)
    staging = Path(tempfile.mkdtemp(prefix=f".{ENVIRONMENT.name}.", dir=ENVIRONMENT.parent))
    try:
        _uv("venv", "--quiet", "--allow-existing", "--python", sys.executable, str(staging))
        _uv("pip", "install", "--quiet", "--python", str(staging / "bin" / "python"), f"duckdb=={DUCKDB_1X}", "pytz")
        staging.chmod(0o755)  # mkdtemp's is 0700: the environment is shared like the venv it sits in
        with suppress(OSError):  # another test process made it first: use that one
            staging.rename(ENVIRONMENT)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return python


def _first_difference(name: str, in_1x: dict[str, Any] | None, in_2x: dict[str, Any] | None) -> str:
    if in_1x is None or in_2x is None:
        return f"{name}: only in DuckDB {duckdb.__version__ if in_1x is None else DUCKDB_1X}"
    if in_1x["columns"] != in_2x["columns"]:
        return f"{name}: columns {in_1x['columns']} in {DUCKDB_1X}, {in_2x['columns']} in {duckdb.__version__}"
    for a, b in zip(in_1x["rows"], in_2x["rows"], strict=False):
        if a != b:
            return f"{name}: {a} in {DUCKDB_1X}, {b} in {duckdb.__version__}"
    return f"{name}: {len(in_1x['rows'])} rows in {DUCKDB_1X}, {len(in_2x['rows'])} in {duckdb.__version__}"


def _read_by_both(serving: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The answers of every view of `serving` in DuckDB 1.x, then in this DuckDB."""
    done = subprocess.run(
        [str(duckdb_1x()), _serving_reads.__file__, str(serving)], capture_output=True, text=True, timeout=300
    )
    said = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 0, f"DuckDB {DUCKDB_1X} could not read {serving}: {said[-1] if said else done.returncode}"
    in_1x = json.loads(done.stdout)
    assert in_1x["duckdb"] == DUCKDB_1X
    with duckdb.connect(str(serving), read_only=True) as conn:
        return in_1x, _serving_reads.answers(conn)


def _differences(in_1x: dict[str, Any], in_2x: dict[str, Any]) -> list[str]:
    return [
        _first_difference(name, in_1x["answers"].get(name), in_2x.get(name))
        for name in sorted(set(in_1x["answers"]) | set(in_2x))
        if in_1x["answers"].get(name) != in_2x.get(name)
    ]


@pytest.mark.timeout(900)  # the reference run, and making the environment the first time
def test_duckdb_1x_reads_every_view_of_the_serving_database_as_duckdb_2_does(reference: Reference):
    in_1x, in_2x = _read_by_both(reference.place.root / "serving.duckdb")
    bi = {name for name in in_2x if name.startswith("bi.")} - {"bi.change_rule macros"}
    assert bi == {f"bi.{view}" for view in VIEWS}
    assert any(name.startswith("core.") for name in in_2x)
    # Rows make the comparison mean something; a clean run records no field drift, every model
    # the emulator bills is in the declared map, and the reference run (no vendor key) has no
    # vendor's people to leave unmapped.
    empty = {"bi.field_drift", "bi.billing_model_drift", "bi.assistant_unmapped_people"}
    assert {name for name in bi if not in_2x[name]["rows"]} <= empty
    differ = _differences(in_1x, in_2x)
    assert not differ, "\n".join(differ)


@pytest.mark.timeout(900)
def test_duckdb_1x_reads_the_aggregate_tier_as_duckdb_2_does(reference: Reference):
    # The tier a wide audience's BI tool opens, through the same embedded 1.x drivers.
    in_1x, in_2x = _read_by_both(aggregate_serving(reference.place.root / "serving.duckdb"))
    assert set(in_2x) == {f"aggregate.{name}" for name in AGGREGATE_TABLES}
    assert [name for name in in_2x if in_2x[name]["rows"]]
    differ = _differences(in_1x, in_2x)
    assert not differ, "\n".join(differ)


def test_the_bi_guide_names_the_duckdb_versions_that_open_the_serving_database():
    guide = (REPO / "docs" / "bi.md").read_text()
    assert f"DuckDB {DUCKDB_1X}" in guide
    assert f"STORAGE_VERSION '{STORAGE_VERSION}'" in guide
    assert f"DuckDB {STORAGE_VERSION.removeprefix('v')}" in guide
