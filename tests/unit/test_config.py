from datetime import date
from pathlib import Path

import pytest

from pipelines.config import Settings
from pipelines.service import ConfigError, Secret


def test_settings_read_every_variable_and_derive_defaults(tmp_path: Path) -> None:
    settings = Settings.from_env(
        environ={
            "SERVICE_BASE_URL": "http://127.0.0.1:9/",
            "SERVICE_TOKEN": "tok-123",
            "SERVICE_ORG": "acme",
            "SERVICE_REPOS": "acme/a, acme/b ,",
            "SERVICE_RATE_LIMIT_MAX_WAIT": "60",
            "METRICS_START_DAY": "2026-10-01",
            "SERVICE_DIALECT": "github",
            "SERVICE_TOKEN_FILE": str(tmp_path / "token"),
        }
    )
    assert settings.base_url == "http://127.0.0.1:9"
    assert settings.graphql_url == "http://127.0.0.1:9/graphql"
    assert settings.oauth_url == "http://127.0.0.1:9"
    assert settings.token == Secret("tok-123")
    assert settings.repos == ("acme/a", "acme/b")
    assert settings.rate_limit_max_wait == 60.0
    assert settings.start_day(today=date(2026, 11, 20)) == date(2026, 10, 1)
    assert settings.api_version == "2026-03-10"
    assert settings.dialect == "github"


def test_default_start_day_is_28_days_before_today(tmp_path: Path) -> None:
    settings = Settings.from_env(environ={"SERVICE_TOKEN_FILE": str(tmp_path / "none")})
    assert settings.start_day(today=date(2026, 11, 20)) == date(2026, 10, 23)


def test_repr_of_settings_never_shows_secrets(tmp_path: Path) -> None:
    settings = Settings.from_env(
        environ={
            "SERVICE_TOKEN": "tok-very-secret",
            "SERVICE_APP_PRIVATE_KEY": "-----BEGIN KEY-----abc",
            "SERVICE_CLIENT_SECRET": "cs-very-secret",
            "WEBHOOK_SECRET": "wh-very-secret",
        }
    )
    text = repr(settings) + str(settings)
    for secret in ("tok-very-secret", "BEGIN KEY", "cs-very-secret", "wh-very-secret"):
        assert secret not in text


def test_dotenv_file_is_read_but_never_overrides_the_environment(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("SERVICE_ORG=from-file\nSERVICE_ENTERPRISE=ent-from-file\n")
    settings = Settings.from_env(environ={"SERVICE_ORG": "from-env"}, dotenv_path=dotenv)
    assert settings.orgs == ("from-env",)
    assert settings.enterprises == ("ent-from-file",)


def test_token_file_is_used_when_service_token_is_unset(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-file\n")
    settings = Settings.from_env(environ={"SERVICE_TOKEN_FILE": str(token_file)})
    assert settings.token == Secret("from-file")
    with_env = Settings.from_env(environ={"SERVICE_TOKEN_FILE": str(token_file), "SERVICE_TOKEN": "env"})
    assert with_env.token == Secret("env")


def test_private_key_is_read_from_its_path(tmp_path: Path) -> None:
    key = tmp_path / "app.pem"
    key.write_text("PEM")
    settings = Settings.from_env(
        environ={"SERVICE_APP_ID": "1", "SERVICE_APP_PRIVATE_KEY_PATH": str(key), "SERVICE_INSTALLATION_ID": "2"}
    )
    assert settings.app_private_key == Secret("PEM")
    assert settings.uses_app


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SERVICE_RATE_LIMIT_MAX_WAIT", "soon"),
        ("METRICS_START_DAY", "yesterday"),
        ("SERVICE_APP_PRIVATE_KEY_PATH", "/nonexistent/k"),
        ("METRICS_AUTOMATION", "sometimes"),
        ("METRICS_TRAILING_DAYS", "2.5"),
        ("WAREHOUSE_LOCK_WAIT", "-1"),
    ],
)
def test_bad_values_raise_config_error_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env(environ={name: value})


def test_a_start_day_that_does_not_exist_says_so() -> None:
    with pytest.raises(ConfigError, match=r"^METRICS_START_DAY: 2024-02-30 is not a date: February 2024 has 29 days$"):
        Settings.from_env(environ={"METRICS_START_DAY": "2024-02-30"})


def test_every_path_is_inside_the_home_whatever_the_working_directory(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir("/")
    settings = Settings.from_env(environ={"METRICS_HOME": str(tmp_path / "home"), "RAW_DIR": "archive"})
    home = tmp_path / "home"
    assert settings.home == home
    assert settings.warehouse_path == home / "warehouse.duckdb"
    assert settings.serving_path == home / "serving.duckdb"
    assert settings.lake_path == home / "lake"
    assert settings.raw_dir == home / "archive", "a relative setting is inside the home"
    assert settings.webhook_spool_dir == home / "spool"
    assert settings.etag_cache == home / "http-cache.sqlite3"
    assert settings.token_file == home / "token"
    assert settings.dagster_home == home / "dagster"
    assert settings.logs_dir == home / "logs"


def test_the_default_home_is_the_users_data_directory(tmp_path: Path) -> None:
    settings = Settings.from_env(environ={"XDG_DATA_HOME": str(tmp_path)})
    assert settings.home == tmp_path / "metrics-etl"
    assert Settings.from_env(environ={}).home == Path.home() / ".local" / "share" / "metrics-etl"


def test_an_absolute_path_setting_stays_where_it_is_and_the_cli_home_wins(tmp_path: Path) -> None:
    settings = Settings.from_env(
        environ={"METRICS_HOME": str(tmp_path / "a"), "WAREHOUSE_PATH": str(tmp_path / "elsewhere.duckdb")},
        home=tmp_path / "b",
    )
    assert settings.home == tmp_path / "b"
    assert settings.warehouse_path == tmp_path / "elsewhere.duckdb"


def test_automation_and_trailing_days_are_settings() -> None:
    settings = Settings.from_env(environ={"METRICS_AUTOMATION": "on", "METRICS_TRAILING_DAYS": "5"})
    assert settings.automation is True and settings.trailing_days == 5
    assert Settings.from_env(environ={}).automation is False


def test_a_vendor_whose_key_is_unset_is_skipped_in_one_line_and_one_set_is_configured() -> None:
    settings = Settings.from_env(environ={"ANTHROPIC_ADMIN_KEY": "sk-ant-admin01-x", "CURSOR_BASE_URL": "http://e/"})
    configs, skipped = settings.vendor_configs()
    assert list(configs) == ["claude_code"]
    assert configs["claude_code"].base_url == "https://api.anthropic.com"
    assert configs["claude_code"].key_setting == "ANTHROPIC_ADMIN_KEY"
    assert skipped == ["Cursor (Cursor Admin API): skipped (CURSOR_API_KEY is not set)"]
    assert "sk-ant-admin01-x" not in repr(settings)


@pytest.mark.parametrize("inside", ["\n", "\r", "\t", " ", "\x00", "\x7f", "\u2028", "\u00a0"])
def test_a_vendor_key_with_a_space_or_control_character_inside_is_not_read_one_line_naming_its_setting(
    inside: str,
) -> None:
    key = f"sk-ant-admin01-{inside}secret-part"
    configs, skipped = Settings.from_env(
        environ={"ANTHROPIC_ADMIN_KEY": key, "CURSOR_API_KEY": "key_ok"}
    ).vendor_configs()
    assert list(configs) == ["cursor"]
    assert len(skipped) == 1 and "\n" not in skipped[0] and "secret-part" not in skipped[0]
    assert skipped[0].startswith("Claude Code (Anthropic Admin API): not read: ANTHROPIC_ADMIN_KEY has a space")


def test_a_vendor_address_that_is_not_http_names_its_variable() -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_BASE_URL must start with http"):
        Settings.from_env(environ={"ANTHROPIC_BASE_URL": "api.anthropic.com"})
