"""The README's first `metrics-etl sql` command, exactly as written, answers with rows on the serving
database `metrics-etl run` publishes from the emulator (the clean reference run, shared)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelines.cli import cli

README = Path(__file__).resolve().parents[2] / "README.md"
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


def _first_sql_command() -> list[str]:
    """The words of the README's first `metrics-etl sql ...` line of code, its comment left out."""
    for block in _FENCE.findall(README.read_text()):
        for line in block.splitlines():
            if line.startswith("metrics-etl sql"):
                return shlex.split(line, comments=True)
    raise AssertionError("the README shows no `metrics-etl sql` command")


def test_the_readmes_first_query_prints_rows_of_a_real_run(
    reference, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = _first_sql_command()
    assert len(words) == 3, f"the README's first query should be one quoted argument: {words}"
    monkeypatch.chdir(tmp_path)  # as a user would: no .env, the serving database named by SERVING_PATH
    done = CliRunner().invoke(cli, words[1:], env={"SERVING_PATH": str(reference.place.root / "serving.duckdb")})
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    header_end = next(i for i, line in enumerate(lines) if line.startswith("├"))
    rows = [line for line in lines[header_end + 1 :] if line.startswith("│")]
    assert rows, done.stdout
