"""The `metrics-etl` command in-process, through click's CliRunner: help, usage errors, failures."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import shutil
import stat
import sys
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pipelines._clock import utc_today
from pipelines.cli import cli, main
from pipelines.cli._base import own_command
from pipelines.cli._run import _demo_billing_months, _demo_settings, _next_steps


def _commands(group: click.Group = cli, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


COMMANDS = dict(_commands())


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner in an empty directory: no .env, no warehouse, no service settings."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "SERVING_", "METRICS_", "WEBHOOK_", "LAKE_", "RAW_")):
            monkeypatch.delenv(name)
    return CliRunner()


@pytest.mark.parametrize("path", [[], *(list(path) for path in COMMANDS)], ids=lambda p: " ".join(p) or "metrics-etl")
def test_every_command_has_help(runner: CliRunner, path: list[str]) -> None:
    done = runner.invoke(cli, [*path, "--help"])
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith(f"Usage: {' '.join(['metrics-etl', *path])} ")


@pytest.mark.parametrize("path", [(), *COMMANDS], ids=lambda p: " ".join(p) or "metrics-etl")
def test_every_command_and_option_says_what_it_does(path: tuple[str, ...]) -> None:
    command = COMMANDS.get(path, cli)
    assert command.get_short_help_str(limit=200).strip(), f"{' '.join(path)} has no help"
    # `params` holds the command's own options, not the --help click adds to each.
    options = [param for param in command.params if isinstance(param, click.Option)]
    assert [option.name for option in options if not (option.help or "").strip()] == []


def test_version_is_the_installed_package_s(runner: CliRunner) -> None:
    done = runner.invoke(cli, ["--version"])
    assert done.exit_code == 0, done.output
    assert done.stdout == f"metrics-etl {importlib.metadata.version('metrics-etl')}\n"
    assert main(["--version"]) == 0


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["run", "--day", "yesterday"], "metrics-etl run: Invalid value for '--day': not a day YYYY-MM-DD"),
        (["run", "--day", "2026-01-05", "--from", "2026-01-01"], "metrics-etl run: give --day (one day) or --from"),
        (["run", "--bogus"], "metrics-etl run: No such option '--bogus'"),
        (["export", "--out", "x.csv"], "metrics-etl export: Missing option '--view'"),
        (["quarantine", "clear", "--note", "why"], "metrics-etl quarantine clear: name the lines to clear"),
        (["frobnicate"], "metrics-etl: No such command 'frobnicate'"),
        ([], "metrics-etl: Missing command"),
    ],
)
def test_a_usage_error_is_one_line_on_stderr_with_exit_2(runner: CliRunner, args: list[str], says: str) -> None:
    done = runner.invoke(cli, args)
    assert done.exit_code == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(says) and done.stdout == ""


@pytest.mark.parametrize(
    ("day", "says"),
    [
        ("2026-11-31", "2026-11-31 is not a date: November 2026 has 30 days"),
        ("2026-02-29", "2026-02-29 is not a date: February 2026 has 28 days"),
        ("2026-13-01", "2026-13-01 is not a date: months run from 01 to 12"),
    ],
)
def test_a_day_that_does_not_exist_is_called_no_date(runner: CliRunner, day: str, says: str) -> None:
    done = runner.invoke(cli, ["run", "--day", day])
    assert done.exit_code == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"metrics-etl run: Invalid value for '--day': {says} ("), line


def test_a_failure_is_one_line_on_stderr_with_exit_1_and_no_traceback(runner: CliRunner, tmp_path: Path) -> None:
    done = runner.invoke(cli, ["export", "--view", "agent_usage_daily", "--out", "x.csv"])
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("metrics-etl export: no warehouse yet:") and "Traceback" not in done.output
    assert not (tmp_path / "x.csv").exists()


def test_run_with_nothing_configured_names_every_missing_setting_and_starts_no_run(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipelines.runs

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a run started")

    monkeypatch.setattr(pipelines.runs, "run_plan", never)
    monkeypatch.setenv("METRICS_HOME", str(tmp_path / "home"))  # no token file left by anyone
    done = runner.invoke(cli, ["run"])
    assert done.exit_code == 1 and done.stdout == "" and "Traceback" not in done.output
    lines = done.stderr.splitlines()
    assert [line.split(": ")[1] for line in lines] == ["no credentials", "no report scope", "configuration"]
    assert all(line.startswith("metrics-etl run: ") for line in lines)
    named = " ".join(lines)
    for variable in ("SERVICE_TOKEN", "SERVICE_ORG", "SERVICE_ENTERPRISE", "SERVICE_BASE_URL"):
        assert variable in named
    assert not (tmp_path / "home").exists(), "nothing written before the configuration is whole"


def test_main_returns_the_exit_code(runner: CliRunner, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert main(["run", "--to", "2026-01-05"]) == 2
    assert main(["report"]) == 1
    assert capsys.readouterr().err.splitlines()[-1].startswith("metrics-etl report: no warehouse yet:")


def test_dotenv_is_loaded_without_overriding_variables_already_set(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text("METRICS_ETL_TEST_FROM_DOTENV=yes\nSERVICE_ORG=from-dotenv\n")
    monkeypatch.delenv("METRICS_ETL_TEST_FROM_DOTENV", raising=False)  # restored (absent) after the test
    monkeypatch.setenv("SERVICE_ORG", "already-set")
    runner.invoke(cli, ["report"])
    assert os.environ["METRICS_ETL_TEST_FROM_DOTENV"] == "yes"
    assert os.environ["SERVICE_ORG"] == "already-set"


def test_the_demo_passes_the_emulator_token_in_an_owner_only_file(runner: CliRunner, tmp_path: Path) -> None:
    creds = {
        "base_url": "http://127.0.0.1:9",
        "graphql_url": "http://127.0.0.1:9/graphql",
        "oauth_url": "http://127.0.0.1:9",
        "token": "emulator-token",
        "org": "acme",
        "enterprise": "acme-corp",
    }
    settings = _demo_settings(creds, home=tmp_path / "demo", first_day=date(2026, 10, 1), billing_months=2)
    assert settings.token is None and settings.base_url == "http://127.0.0.1:9"
    assert settings.orgs == ("acme",) and settings.enterprises == ("acme-corp",)
    path = settings.token_file
    assert path == tmp_path / "demo" / "token", "every demo file is in the demo's home"
    assert settings.warehouse_path == tmp_path / "demo" / "warehouse.duckdb"
    assert settings.dagster_home == tmp_path / "demo" / "dagster"
    assert path.read_text() == "emulator-token" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "emulator-token" not in repr(settings) and "SERVICE_TOKEN" not in os.environ


def test_the_demo_lands_the_bill_of_the_months_its_days_fall_in_unless_billing_months_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BILLING_MONTHS", raising=False)
    month = utc_today().replace(day=1)
    assert _demo_billing_months(month) == 1
    assert _demo_billing_months((month - timedelta(days=1)).replace(day=1)) == 2
    assert _demo_billing_months(month.replace(year=month.year - 1)) == 13
    monkeypatch.setenv("BILLING_MONTHS", "24")
    assert _demo_billing_months(month) == 24


def test_the_demo_never_uses_the_deployments_home(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("METRICS_HOME", str(tmp_path / "metrics-etl-demo"))
    result = runner.invoke(cli, ["demo"])
    assert result.exit_code == 2
    assert "is METRICS_HOME: give the demo another one with --home" in result.output


@pytest.mark.parametrize("activated", [False, True], ids=["venv not activated", "venv activated"])
@pytest.mark.parametrize("own_home", [False, True], ids=["the demo's home", "a home given"])
def test_the_demos_next_steps_run_as_printed_from_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, activated: bool, own_home: bool
) -> None:
    venv_bin = Path(sys.executable).parent
    monkeypatch.chdir(Path(__file__).resolve().parents[3])  # the repository, where `make demo` runs
    monkeypatch.setenv("PATH", os.pathsep.join([*([str(venv_bin)] if activated else []), "/usr/bin", "/bin"]))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # the demo's home is tmp_path/metrics-etl-demo
    home = tmp_path / ("demo's home" if own_home else "metrics-etl-demo")
    lines = _next_steps(own_command(home=home), page=home / "report.html", home=home)
    commands = [line.split(": ", 1)[1].split("  (")[0] for line in lines if line.startswith(("query it: ", "its runs"))]
    commands += re.findall(r"`([^`]+)`", "\n".join(lines))
    assert len(commands) == 3, lines
    for command in commands:
        words = shlex.split(command)
        assignments = [word for word in words if re.match(r"[A-Z_]+=", word)]
        program, *args = words[len(assignments) :]
        found = shutil.which(program)  # a path is taken from the working directory, a name from PATH
        assert found is not None, f"{command}: {program} is not found from the repository"
        if program == "make":
            assert args == ["dev"] and assignments == ([f"METRICS_HOME={home}"] if own_home else []), command
        else:
            assert Path(found).resolve() == (venv_bin / "metrics-etl").resolve(), command
            assert args[:2] == ["--home", str(home)], command
            assert (program == "metrics-etl") is activated, command


GROUPS = [(), *(path for path, command in COMMANDS.items() if isinstance(command, click.Group))]


@pytest.mark.parametrize("path", GROUPS, ids=lambda p: " ".join(p) or "metrics-etl")
def test_a_group_s_help_lists_each_command_with_its_first_sentence_whole(
    runner: CliRunner, path: tuple[str, ...]
) -> None:
    done = runner.invoke(cli, [*path, "--help"])
    assert done.exit_code == 0, done.output
    listing = " ".join(done.stdout.split("Commands:", 1)[1].split())  # the wrapped lines as one text
    assert "..." not in listing and "…" not in listing
    group = COMMANDS.get(path, cli)
    assert isinstance(group, click.Group)
    for name, command in group.commands.items():
        if command.hidden:
            continue
        first_paragraph = " ".join((command.help or "").split("\n\n")[0].split())
        sentence = re.match(r".*?\.(?= [A-Z]|$)", first_paragraph)
        assert sentence is not None, name
        assert f"{name} {sentence[0]}" in listing
