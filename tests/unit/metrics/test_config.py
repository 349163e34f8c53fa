"""Settings build the catalog reader's configuration: the tiers' databases as the publish names
them, the aggregate tier alone unless the setting (or the caller) asks for the pseudonymous one."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.config import ConfigError, Settings
from pipelines.publish.aggregate import aggregate_serving
from pipelines.publish.pseudonymous import pseudonymous_serving


def test_the_reader_opens_the_databases_the_publish_writes(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, serving_path=Path("bi/serving.duckdb"))
    config = settings.metrics_config(tier="pseudonymous")
    assert config.aggregate_path == aggregate_serving(settings.serving_path)
    assert config.pseudonymous_path == pseudonymous_serving(settings.serving_path)


def test_the_default_tier_is_the_aggregate_one_and_opens_no_pseudonymous_database(tmp_path: Path) -> None:
    config = Settings(home=tmp_path).metrics_config()
    assert (config.tier, config.pseudonymous_path) == ("aggregate", None)


def test_the_settings_come_from_the_environment(tmp_path: Path) -> None:
    environ = {
        "METRICS_HOME": str(tmp_path),
        "METRICS_CATALOG_TIER": "pseudonymous",
        "METRICS_CATALOG_ROW_LIMIT": "50",
        "METRICS_CATALOG_TIMEOUT": "2.5",
    }
    config = Settings.from_env(environ=environ).metrics_config()
    assert (config.tier, config.row_limit, config.time_limit_s) == ("pseudonymous", 50, 2.5)
    assert Settings.from_env(environ=environ).metrics_config(tier="aggregate").pseudonymous_path is None


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("METRICS_CATALOG_TIER", "full", "METRICS_CATALOG_TIER must be aggregate or pseudonymous, not 'full'"),
        ("METRICS_CATALOG_ROW_LIMIT", "0", "METRICS_CATALOG_ROW_LIMIT must be above 0"),
        ("METRICS_CATALOG_TIMEOUT", "-1", "METRICS_CATALOG_TIMEOUT must be a number of seconds above 0, not '-1'"),
    ],
)
def test_a_wrong_setting_is_one_line_naming_it(tmp_path: Path, name: str, value: str, said: str) -> None:
    with pytest.raises(ConfigError) as refused:
        Settings.from_env(environ={"METRICS_HOME": str(tmp_path), name: value})
    assert str(refused.value) == said
