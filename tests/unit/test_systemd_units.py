"""deploy/systemd/*.service: each unit runs a program this repository installs into its venv, with
arguments that program accepts, as the service user, with the deployment's settings and the
hardening docs/operations.md describes, and the umask docs/privacy.md's file modes rest on."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from pipelines.cli import cli

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
NAMES = ["metrics-etl-webserver.service", "metrics-etl-daemon.service", "metrics-etl-webhooks.service"]
CLONE_BIN = "/opt/metrics-etl/.venv/bin/"
VENV_BIN = Path(sys.executable).parent  # this checkout's .venv/bin: what `make install` puts there
PROGRAMS = {
    "metrics-etl-webserver.service": ["dagster-webserver", "-w", "/opt/metrics-etl/workspace.yaml"],
    "metrics-etl-daemon.service": ["dagster-daemon", "run", "-w", "/opt/metrics-etl/workspace.yaml"],
    "metrics-etl-webhooks.service": ["metrics-etl", "webhooks", "serve"],
}


def parse_unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """A unit file as {section: {key: [values, in order]}}: systemd lets a key repeat."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if match := re.fullmatch(r"\[([A-Za-z]+)\]", line):
            current = sections.setdefault(match.group(1), {})
            continue
        key, sep, value = line.partition("=")
        assert sep and current is not None and not line.endswith("\\"), f"{path.name}:{number}: {raw!r}"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def _one(unit: dict[str, dict[str, list[str]]], section: str, key: str) -> str:
    values = unit.get(section, {}).get(key, [])
    assert len(values) == 1, f"[{section}] {key}: {values}"
    return values[0]


def exec_start(path: Path) -> list[str]:
    return shlex.split(_one(parse_unit(path), "Service", "ExecStart"))


def test_the_three_units_are_there() -> None:
    assert sorted(p.name for p in UNITS.glob("*.service")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_unit_runs_as_the_service_user_with_the_settings_and_hardening(name: str) -> None:
    unit = parse_unit(UNITS / name)
    service = {key: values[-1] for key, values in unit["Service"].items()}
    assert service["User"] == "metrics-etl"
    assert service["WorkingDirectory"] == "/opt/metrics-etl"
    assert service["EnvironmentFile"] == "/etc/metrics-etl/env"
    assert service["Restart"] == "on-failure"
    assert service["NoNewPrivileges"] == "yes"
    assert service["PrivateTmp"] == "yes"
    assert service["ProtectSystem"] == "strict"
    assert "/var/lib/metrics-etl" in service["ReadWritePaths"].split()
    # Nothing it writes is readable by others: docs/privacy.md's file modes rest on it.
    assert service["UMask"] == "0027"
    assert service["StandardOutput"] == service["StandardError"] == "journal"
    after = " ".join(unit["Unit"]["After"]).split()
    assert {"network-online.target", "postgresql.service"} <= set(after)
    assert "network-online.target" in " ".join(unit["Unit"].get("Wants", [])).split()
    assert _one(unit, "Install", "WantedBy") == "multi-user.target"


@pytest.mark.parametrize("name", NAMES)
def test_exec_start_is_a_program_of_the_venv_with_its_expected_arguments(name: str) -> None:
    program, *args = exec_start(UNITS / name)
    assert program.startswith(CLONE_BIN), f"{name}: {program} is not in the clone's venv"
    installed = VENV_BIN / program.removeprefix(CLONE_BIN)
    assert installed.is_file(), f"{name}: `make install` puts no {installed.name} in .venv/bin"
    expected = PROGRAMS[name]
    assert [installed.name, *args][: len(expected)] == expected


@pytest.mark.parametrize("name", NAMES)
def test_the_program_accepts_the_arguments(name: str) -> None:
    """Each option the unit gives is one the program knows (`--help` after them exits 0)."""
    program, *args = exec_start(UNITS / name)
    installed = VENV_BIN / program.removeprefix(CLONE_BIN)
    done = subprocess.run([str(installed), *args, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{name}: {installed.name} {' '.join(args)} --help: {done.stdout}{done.stderr}"


def test_the_receiver_s_arguments_parse_to_their_types() -> None:
    """Beyond option names: the values convert (the port is a number)."""
    _, *args = exec_start(UNITS / "metrics-etl-webhooks.service")
    command: click.Command = cli
    while isinstance(command, click.Group):
        command = command.commands[args.pop(0)]
    with command.make_context(command.name, list(args)) as ctx:
        assert ctx.params["host"] == "127.0.0.1"
        assert isinstance(ctx.params["port"], int)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze on this machine")
def test_systemd_analyze_verifies_the_units(tmp_path: Path) -> None:
    """systemd's own check, on copies whose programs point into this checkout's venv (it
    reports a program that does not exist)."""
    for name in NAMES:
        text = (UNITS / name).read_text().replace(CLONE_BIN, f"{VENV_BIN}/")
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", *(str(tmp_path / name) for name in NAMES)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
