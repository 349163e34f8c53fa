# Everything starts from a machine that has only python3: the venv, uv inside it, then the lock.
VENV   := .venv
UV     := $(VENV)/bin/uv
PYTEST := $(VENV)/bin/pytest
PYTEST_ARGS ?=

.PHONY: install test demo dev bench chaos clean

$(UV):
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check uv

$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --inexact
	touch $@

install: $(VENV)/.synced

test: install
	$(PYTEST) $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) data .pytest_cache
