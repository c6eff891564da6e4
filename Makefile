# gemtui: `make run` sets up and launches, `make test` sets up and runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-snapshot-update test-real-llm lint format bench demo install compile clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# An editable install is not byte-compiled (and PYTHONDONTWRITEBYTECODE may forbid
# caching): compile once, as a wheel install would, so start-up is not spent compiling.
compile: $(STAMP)
	@$(BIN)/python -m compileall -q src > /dev/null

install: $(STAMP)

run: compile
	$(BIN)/gemtui

demo: compile
	$(BIN)/gemtui --fake-responses src/gemtui/tui/demo.jsonl

test: $(STAMP)
	$(BIN)/pytest

# Not part of `make test`: a real llama-server with a real 0.5B model (built once by
# ../shared/real-llm/setup.sh), four headless checks; RUNS=5 repeats them.
test-real-llm: compile
	$(BIN)/python bench/real_llm.py --runs $(or $(RUNS),1)

test-snapshot-update: $(STAMP)
	$(BIN)/pytest tests/tui --snapshot-update

# ruff, the formatting, mypy strict and the import contracts in pyproject.toml (import-linter
# is a dev extra: the click it needs no longer slows start-up, see _without_httpx_cli)
lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	PYTHONPATH=src $(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff check --fix src tests bench
	$(BIN)/ruff format src tests bench

bench: compile
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
