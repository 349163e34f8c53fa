# Everything starts from a machine that has only python3: the venv, uv inside it, then the lock.
VENV   := .venv
UV     := $(VENV)/bin/uv
PYTEST := $(VENV)/bin/pytest
PYTEST_ARGS ?=

.PHONY: install check test test-spark demo dev bench bench-quick chaos clean

$(UV):
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check uv

$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --inexact
	touch $@

install: $(VENV)/.synced

# Lint, format and types, zero findings: ruff (rules and line length in pyproject.toml) on all
# the code, its formatter's check (`ruff format` writes it), mypy --strict on pipelines/ (its
# files are listed in pyproject.toml).
check: install
	$(VENV)/bin/ruff check pipelines emulator benchmarks tests
	$(VENV)/bin/ruff format --check pipelines emulator benchmarks tests
	$(VENV)/bin/mypy

# Two workers (pytest-xdist), each taking a test file at a time so its module fixtures run once;
# then the `serial` tests alone (exit 5: none selected by PYTEST_ARGS). TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2
test: install
	$(PYTEST) -n $(TEST_WORKERS) --dist loadfile -m "not serial" $(PYTEST_ARGS)
	$(PYTEST) -m serial $(PYTEST_ARGS) || [ $$? -eq 5 ]

# Spark over the lake (tests/spark; `make test` leaves it out): the spark dependency group (pyspark)
# and Java 17 or later on PATH (.ci/run installs Debian's openjdk-17-jre-headless).
test-spark: install
	$(UV) sync --frozen --inexact --group spark
	$(PYTEST) tests/spark $(PYTEST_ARGS)

# The main job on the emulator: 56 days of reports, the latest 28-day report, today's snapshot.
demo: install
	$(VENV)/bin/metrics-etl demo

# The emulator and Dagster's UI (http://127.0.0.1:3000, or DAGSTER_PORT) on the same workspace;
# files under METRICS_HOME (default: the demo's home, so the UI shows the demo's runs and
# partitions). Ctrl-C stops both within seconds.
dev: install
	scripts/dev.sh

# Every benchmark with its baseline in the same run, then one screen: each figure beside its
# target (benchmarks/summary.py). A failing benchmark does not stop the others ("-"); the
# summary names it and exits 1, as it does when a target is missed.
bench: install
	$(VENV)/bin/python -m benchmarks.summary --clear
	-$(VENV)/bin/python -m benchmarks.ingest
	-$(VENV)/bin/python -m benchmarks.parts
	-$(VENV)/bin/python -m benchmarks.snapshots
	-$(VENV)/bin/python -m benchmarks.webhooks
	-$(VENV)/bin/python -m benchmarks.history
	-$(VENV)/bin/python -m benchmarks.views
	-$(VENV)/bin/python -m benchmarks.publish
	$(VENV)/bin/python -m benchmarks.summary

# For every change that touches ingestion, under a minute: a 50,000 user-day file, one round,
# the pipeline's ratio to the hand-written SQL and to the bare read.
bench-quick: install
	$(VENV)/bin/python -m benchmarks.ingest --users 50000

# The fault-injection proof at full length (CI runs a shorter version inside `make test`).
chaos: install
	CHAOS_FULL=1 $(PYTEST) tests/e2e/test_chaos.py -s

clean:
	rm -rf $(VENV) data .pytest_cache
