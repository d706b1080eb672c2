# One entry point per job. Every target creates or reuses .venv and installs what it needs.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test lint bench packages clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/etg demo --live

# Two processes (pytest-xdist): the end-to-end tests each start their own servers on free
# ports and folders, so they run side by side; a whole run takes about half the time.
TEST_PROCESSES ?= 2

test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_PROCESSES)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy shared game_server

bench: $(STAMP)
	$(BIN)/etg bench

# The Debian packages the tests use (RNG lab tools, PostgreSQL, systemd, Xvfb, chromium); needs
# root or sudo.
packages:
	bash tools/ci_packages.sh
	bash tools/ci_browser.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
