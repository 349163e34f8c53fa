""".env.example against pipelines/config.py: it names every setting (and the DAGSTER_PG_*
variables of the PostgreSQL instance), each once with a comment, secrets empty, in a form that
systemd's EnvironmentFile=, a shell's `.` and python-dotenv read alike; and it parses."""

from __future__ import annotations

import re
from pathlib import Path

from dotenv import dotenv_values

from pipelines.config import ENV_VARS, SECRET_FIELDS, Settings

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / ".env.example"
DAGSTER_PG = {"DAGSTER_PG_HOST", "DAGSTER_PG_PORT", "DAGSTER_PG_USER", "DAGSTER_PG_PASSWORD", "DAGSTER_PG_DB"}
SECRETS = {ENV_VARS[name] for name in SECRET_FIELDS} | {"DAGSTER_PG_PASSWORD"}
# NAME=value with nothing a shell or systemd would read differently: no quotes, blanks or `#`.
_ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)=([^\s\"'#$`\\]*)$")


def _parse() -> list[tuple[str, str, str]]:
    """(name, value, the comment line just above it) for each assignment, in file order."""
    found = []
    previous = ""
    for number, line in enumerate(EXAMPLE.read_text().splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            match = _ASSIGNMENT.match(line)
            assert match, f".env.example:{number}: not a plain NAME=value line: {line!r}"
            found.append((match.group(1), match.group(2), previous))
        previous = line
    return found


def test_it_names_every_setting_and_the_postgres_variables_once() -> None:
    names = [name for name, _, _ in _parse()]
    assert len(names) == len(set(names)), "a variable appears twice"
    assert set(names) == set(ENV_VARS.values()) | DAGSTER_PG


def test_each_variable_has_a_comment_naming_its_default_and_secrets_are_empty() -> None:
    for name, value, comment in _parse():
        assert comment.startswith("# "), f"{name} has no comment line above it"
        assert "default" in comment, f"{name}: its comment does not say its default"
        if name in SECRETS:
            assert value == "", f"{name} is a secret: leave it empty in the example"


def test_python_dotenv_reads_the_same_values() -> None:
    assert dotenv_values(EXAMPLE) == {name: value for name, value, _ in _parse()}


def test_the_settings_parse_with_the_secrets_filled_in() -> None:
    environ = {name: value for name, value, _ in _parse()}
    environ |= {name: f"dummy-{name.lower()}" for name in SECRETS} | {"SERVICE_ORG": "acme"}
    environ["METRICS_ALERTS"] = "https://hooks.example.org/services/dummy-key"  # a secret with a form
    settings = Settings.from_env(environ=environ)
    assert settings.home == Path("/var/lib/metrics-etl")
    assert settings.dagster_home == Path("/var/lib/metrics-etl/dagster")
    assert settings.warehouse_path == Path("/var/lib/metrics-etl/warehouse.duckdb")
    assert settings.automation is True
    assert settings.scopes == (("organization", "acme"),)
    assert settings.service_config().base_url == "https://api.github.com"
    assert [target.label for target in settings.alerts.targets] == ["webhook hooks.example.org"]
