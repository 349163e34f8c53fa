"""Every test process keeps its files away from the person's own: the default data home
(`~/.local/share/metrics-etl`, through XDG_DATA_HOME) is a temporary directory, and a
METRICS_HOME or DAGSTER_HOME set in the shell that started pytest is not inherited."""

from __future__ import annotations

import os
import shutil
import tempfile

_isolated = tempfile.mkdtemp(prefix="metrics-etl-tests-")


def pytest_configure() -> None:
    os.environ["XDG_DATA_HOME"] = _isolated
    for name in ("METRICS_HOME", "DAGSTER_HOME", "METRICS_AUTOMATION"):
        os.environ.pop(name, None)


def pytest_unconfigure() -> None:
    shutil.rmtree(_isolated, ignore_errors=True)
