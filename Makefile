# gemtui: `make run` sets up and launches, `make test` sets up and runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-snapshot-update lint bench demo install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/gemtui

demo: $(STAMP)
	$(BIN)/gemtui --fake-responses src/gemtui/tui/demo.jsonl

test: $(STAMP)
	$(BIN)/pytest

test-snapshot-update: $(STAMP)
	$(BIN)/pytest tests/tui --snapshot-update

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
