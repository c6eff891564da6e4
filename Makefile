# gemtui: `make run` sets up and launches, `make test` sets up and runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: bwrap run test test-snapshot-update test-real-llm snapshot-png readme-pictures lint format bench bench-peers demo install compile clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# An editable install is not byte-compiled (and PYTHONDONTWRITEBYTECODE may forbid
# caching): compile once, as a wheel install would, so start-up is not spent compiling.
compile: $(STAMP)
	@$(BIN)/python -m compileall -q src > /dev/null

install: $(STAMP) bwrap

# The sandbox (-s) runs commands under bubblewrap, and its tests run the real bwrap:
# install it when missing and the machine allows (root with apt-get); else say how.
bwrap:
	@command -v bwrap > /dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null \
		&& apt-get install -y -q bubblewrap > /dev/null; } \
		|| echo "note: the sandbox needs bwrap: apt-get install bubblewrap"

run: compile
	$(BIN)/gemtui

demo: compile
	$(BIN)/gemtui --fake-responses src/gemtui/tui/demo.jsonl

# On every logical core (pytest-xdist); `pytest tests/x.py` alone still runs in one process.
# --dist loadfile keeps a file's tests in one worker, as they were written to run. Snapshot
# tests (marked by tests/conftest.py) run after, on their own: beside busy workers a
# picture can be taken before the transcript's frame (seen under -n 2 on a loaded machine).
test: $(STAMP) bwrap
	$(BIN)/pytest -n logical --dist loadfile -m "not snapshot"
	$(BIN)/pytest -m snapshot

# Not part of `make test`: a real llama-server with a real 0.5B model (built once by
# ../shared/real-llm/setup.sh), four headless checks; RUNS=5 repeats them.
test-real-llm: compile
	$(BIN)/python bench/real_llm.py --runs $(or $(RUNS),1)

test-snapshot-update: $(STAMP)
	$(BIN)/pytest tests/tui --snapshot-update

# Snapshots as PNG pictures for review, drawn by headless Chromium with the Fira Code font
# the SVGs name (apt: chromium fonts-firacode); rsvg-convert misplaces spaces. → build/snapshots
snapshot-png: $(STAMP)
	$(BIN)/python scripts/snapshot_pngs.py

# The README's pictures are two snapshots (TestReadmePictures), drawn the same way.
readme-pictures: $(STAMP)
	$(BIN)/python scripts/snapshot_pngs.py -o build/readme \
		tests/tui/__snapshots__/test_snapshots/TestReadmePictures.*.svg \
		tests/tui/__snapshots__/test_snapshots/TestRewindPicture.*.svg \
		tests/tui/__snapshots__/test_snapshots/TestAgentView.test_agent_view.svg
	mkdir -p docs
	cp build/readme/test_snapshots.TestReadmePictures.test_main_screen_mid_answer.png docs/main-screen.png
	cp build/readme/test_snapshots.TestReadmePictures.test_approval_with_a_diff.png docs/approval.png
	cp build/readme/test_snapshots.TestRewindPicture.test_rewind_preview.png docs/rewind.png
	cp build/readme/test_snapshots.TestAgentView.test_agent_view.png docs/agents.png

# ruff, the formatting, mypy strict and the import contracts in pyproject.toml (import-linter
# is a dev extra: the click it needs no longer slows start-up, see _without_httpx_cli)
lint: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/mypy
	PYTHONPATH=src $(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff check --fix src tests bench scripts
	$(BIN)/ruff format src tests bench scripts

bench: compile
	$(BIN)/python bench/run.py

# gemtui beside Codex, Gemini CLI and a bare Textual app in tmux, the way a person waits
# (../shared/peer-bench; peers that are not installed are left out; compare within a run).
PEER_BENCH ?= ../shared/peer-bench
PEERS ?= gemtui,codex,gemini-cli
bench-peers: compile
	GEMTUI_CMD="$(CURDIR)/$(BIN)/gemtui" GEMTUI_READY="Ask anything" \
		python3 $(PEER_BENCH)/peers.py --peers $(PEERS) --runs 5 --md bench-peers.md
	bash $(PEER_BENCH)/floor/run.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
