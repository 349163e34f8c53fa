"""The README's first `metrics-etl sql` command, as written, answers with rows on the serving
database `metrics-etl run` publishes from the emulator (the clean reference run, shared): its
`--home` (the demo's) is pointed at that run's home, the one change a test must make."""

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
            words = shlex.split(line, comments=True)
            if words and words[0].endswith("metrics-etl") and "sql" in words:
                return words
    raise AssertionError("the README shows no `metrics-etl sql` command")


def test_the_readmes_first_query_prints_rows_of_a_real_run(
    reference, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = _first_sql_command()
    assert words[1:3] == ["--home", "~/.local/share/metrics-etl-demo"] and words[3] == "sql", words
    assert len(words) == 5, f"the README's first query should be one quoted argument: {words}"
    monkeypatch.chdir(tmp_path)  # as a user would: no .env
    done = CliRunner().invoke(cli, ["--home", str(reference.place.root), *words[3:]])
    assert done.exit_code == 0, done.output
    # Not a terminal: tab-separated values, a header line and then every row.
    header, *rows = done.stdout.splitlines()
    assert "agent_name" in header.split("\t"), header
    assert rows, done.stdout
