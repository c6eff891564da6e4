"""How the app looks: one class per feature, a docstring on each saying what you should see.

Engine events are fed straight to the main screen (as the bridge would post them), so
every snapshot is deterministic; the workspace and branch are pinned by conftest.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus import events as ev
from gemtui.config.settings import Settings, UiSettings
from gemtui.providers.replay import ReplayGenerator
from gemtui.tools.base import Confirmation
from gemtui.tui.app import GemtuiApp
from gemtui.tui.bridge import BusEvent

DIFF = """--- a/src/greet.py
+++ b/src/greet.py
@@ -1,6 +1,8 @@
 def greet(name: str) -> str:
-    return "Hello " + name
+    \"\"\"Say hello politely.\"\"\"
+    return f"Hello, {name}!"
\x20
\x20
 if __name__ == "__main__":
-    print(greet("world"))
+    import sys
+    print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))
"""


def _app(tmp_path: Path, theme: str = "gemtui") -> GemtuiApp:
    settings = Settings(ui=UiSettings(theme=theme))
    provider = ResolvedProvider(
        "gemini", "gemini", ReplayGenerator([]), "gemini-2.5-flash", 1_048_576
    )
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    session = Session(settings, provider, SessionOptions(workspace=workspace))
    return GemtuiApp(settings=settings, session=session, workspace=workspace, raise_errors=True)


def _feed(app: GemtuiApp, *events: ev.Event) -> None:
    for event in events:
        app.main.on_bus_event(BusEvent(event))


def _conversation_start(prompt_id: str = "s#1") -> list[ev.Event]:
    return [
        ev.UserMessage(text="Make greet() friendlier", prompt_id=prompt_id),
        ev.TurnStarted(turn=1, model="gemini-2.5-flash", prompt_id=prompt_id),
        ev.ThoughtDelta(
            text="greet() concatenates strings; an f-string is clearer.",  # heading parsed off
            subject="Reading the code",
            prompt_id=prompt_id,
        ),
    ]


async def _settle(pilot: Pilot[Any]) -> None:
    """Let the screen draw what was fed; the usage pane's live estimate, which waits for
    its next interval, is drawn now so a picture never depends on the machine's speed."""
    with contextlib.suppress(LookupError):  # no main screen yet
        pilot.app.main.usage.flush_live()  # type: ignore[attr-defined]
    await pilot.pause()
    await pilot.pause()


class TestFirstScreen:
    def test_empty_first_screen(self, snap_compare: Any, tmp_path: Path) -> None:
        """An empty transcript, the prompt with its placeholder focused, the thought and
        usage panes on the right, and the status line: `default` mode, gemini:
        gemini-2.5-flash, ~/project, ⎇ main."""
        assert snap_compare(_app(tmp_path), terminal_size=(120, 36), run_before=_settle)


class TestStreaming:
    def test_answer_mid_stream_with_a_thought(self, snap_compare: Any, tmp_path: Path) -> None:
        """The user's message, a thought marker, half an answer (a heading, a sentence and
        an open code block) still streaming; the thought stream shows "Reading the code";
        the status line says answering…"""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(
                pilot.app,  # type: ignore[arg-type]
                *_conversation_start(),
                ev.ContentDelta(
                    text="## A friendlier greet\n\nUse an f-string:\n\n", prompt_id="s#1"
                ),
                ev.ContentDelta(text="```python\ndef greet(name: str) -> str:\n", prompt_id="s#1"),
            )
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 36), run_before=run_before)


def _awaiting(diff: str = DIFF) -> ev.ToolCallStateChanged:
    call = ev.ToolCallSnapshot(
        call_id="c1",
        name="replace",
        args={"file_path": "src/greet.py"},
        state=ev.ToolCallState.AWAITING_APPROVAL,
        description="replace in src/greet.py",
        kind="edit",
        correlation_id="corr-1",
        confirmation=Confirmation(
            kind="edit", title="Edit src/greet.py", file_path="src/greet.py", diff=diff
        ),
    )
    return ev.ToolCallStateChanged(call=call, prompt_id="s#1")


class TestApproval:
    def test_approval_with_a_diff(self, snap_compare: Any, tmp_path: Path) -> None:
        """The approval queue under the transcript, focused (accent border): "Approve
        replace (1 of 1)", the title, the full unified diff with line numbers, removed
        lines tinted red and added lines green, and the key hints."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(pilot.app, *_conversation_start(), _awaiting())  # type: ignore[arg-type]
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 40), run_before=run_before)

    def test_side_by_side_diff(self, snap_compare: Any, tmp_path: Path) -> None:
        """The same call after pressing d: old lines on the left, new on the right."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(pilot.app, *_conversation_start(), _awaiting())  # type: ignore[arg-type]
            await _settle(pilot)
            await pilot.press("f8", "d")  # on purpose: the letter keys act
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 40), run_before=run_before)


def _priced(usage: ev.Usage) -> float | None:
    """What the engine puts on the event for gemini-2.5-flash."""
    from gemtui.agent.prices import cost_of, price_for

    return cost_of(usage, price_for("gemini-2.5-flash"))


class TestUsage:
    @pytest.mark.parametrize("width", [80, 120, 160])
    def test_usage_pane_after_two_turns(
        self, snap_compare: Any, tmp_path: Path, width: int
    ) -> None:
        """The usage pane (at 80 columns opened with F4): a small table, a row for the
        turn and one for the session, a column each for in / out / think / cache
        (session 4,200 530 130 1,024), no figure wrapped onto its own line; "tokens per
        turn · last 2,750 · peak 2,750" over a two-bar sparkline; the context bar, "context
        0.2% · 2,400 of 1.05M" and a cost in dollars."""

        async def run_before(pilot: Pilot[Any]) -> None:
            if width == 80:
                await pilot.press("f4")
            _feed(
                pilot.app,  # type: ignore[arg-type]
                ev.TurnFinished(
                    finish_reason="STOP",
                    model="gemini-2.5-flash",
                    usage=ev.Usage(input=1800, output=220, thoughts=90, cached=0, total=2110),
                    cost=_priced(
                        ev.Usage(input=1800, output=220, thoughts=90, cached=0, total=2110)
                    ),
                ),
                ev.TurnFinished(
                    finish_reason="STOP",
                    model="gemini-2.5-flash",
                    usage=ev.Usage(input=2400, output=310, thoughts=40, cached=1024, total=2750),
                    cost=_priced(
                        ev.Usage(input=2400, output=310, thoughts=40, cached=1024, total=2750)
                    ),
                ),
            )
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(width, 30), run_before=run_before)


class TestSmallTerminal:
    def test_80x24_layout(self, snap_compare: Any, tmp_path: Path) -> None:
        """At 80×24 the side panes hide; transcript, prompt and status line fill the
        screen, and an approval still shows its diff."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(pilot.app, *_conversation_start(), _awaiting())  # type: ignore[arg-type]
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


class TestThemes:
    @pytest.mark.parametrize(
        "theme", ["gemtui", "gemtui-day", "gemtui-dark", "gemtui-light", "gemtui-high-contrast"]
    )
    def test_each_theme(self, snap_compare: Any, tmp_path: Path, theme: str) -> None:
        """A short exchange and a pending diff in each built-in theme; diff colours come
        from the theme's diff-added / diff-removed tokens."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(
                pilot.app,  # type: ignore[arg-type]
                *_conversation_start(),
                ev.ContentDelta(text="Here is the change.", prompt_id="s#1"),
                ev.TurnFinished(
                    finish_reason="STOP",
                    model="gemini-2.5-flash",
                    usage=ev.Usage(10, 5, 2, 0, 17),
                    cost=_priced(ev.Usage(10, 5, 2, 0, 17)),
                ),
                _awaiting(),
            )
            await _settle(pilot)

        assert snap_compare(_app(tmp_path, theme), terminal_size=(110, 36), run_before=run_before)


MARKDOWN_TOUR = """# Release notes

Some **bold**, some *italic*, `inline code` and a [link](https://example.com).

## What changed

- a list item with `code`
- another item

### Details

> A quoted line.

#### Small print

1. first
2. second
"""


class TestMarkdown:
    def test_headings_and_inline_styles(self, snap_compare: Any, tmp_path: Path) -> None:
        """Headings read as headings, all on the left: `#` bold in the accent colour, `##`
        bold, `###` bold italic, `####` italic and muted — none underlined. Bold, italic,
        inline code (a faint tint, not black), a link, bullets and a quote in theme colours."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(
                pilot.app,  # type: ignore[arg-type]
                ev.UserMessage(text="Write the release notes", prompt_id="s#1"),
                ev.ContentDelta(text=MARKDOWN_TOUR, prompt_id="s#1"),
                ev.TurnFinished(
                    finish_reason="STOP",
                    model="gemini-2.5-flash",
                    usage=ev.Usage(10, 5, 2, 0, 17),
                    cost=None,
                ),
            )
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(100, 32), run_before=run_before)


def _shell_done() -> ev.ToolCallStateChanged:
    output = "\n".join(f"tests/test_{n}.py ....  [{n * 10}%]" for n in range(1, 9))
    call = ev.ToolCallSnapshot(
        call_id="c2",
        name="run_shell_command",
        args={"command": "pytest -q tests", "description": "Run the tests", "timeout": 120},
        state=ev.ToolCallState.SUCCESS,
        description="pytest -q tests (Run the tests)",
        kind="execute",
        output=output,
        duration_ms=3400,
    )
    return ev.ToolCallStateChanged(call=call, prompt_id="s#1")


class TestToolCards:
    def test_tool_card_folded(self, snap_compare: Any, tmp_path: Path) -> None:
        """One line per card: "✓ run_shell_command  pytest -q tests  +2 args  · done in
        3.4s" (tool named once, the command in full, the rest folded), then three output
        lines behind a bar and "… 5 more lines · ctrl+o to expand". (A key argument too
        long for the line gets its own lines under the name, in full.)"""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(pilot.app, *_conversation_start(), _shell_done())  # type: ignore[arg-type]
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 24), run_before=run_before)

    def test_tool_card_expanded(self, snap_compare: Any, tmp_path: Path) -> None:
        """After Ctrl+O: the same card lists its other arguments (description, timeout)
        and all eight output lines; no "+2 args", no "more lines"."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(pilot.app, *_conversation_start(), _shell_done())  # type: ignore[arg-type]
            await _settle(pilot)
            await pilot.press("ctrl+o")
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 24), run_before=run_before)


class TestThoughts:
    def test_thought_pane_renders_markdown(self, snap_compare: Any, tmp_path: Path) -> None:
        """The thought pane shows the subject "Planning the change" as a heading (bold, the
        accent colour) and the thought as Markdown in muted text: "greet" in bold, `name`
        as inline code, a two-item bullet list — no raw `**` or backticks."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(
                pilot.app,  # type: ignore[arg-type]
                ev.UserMessage(text="Make greet() friendlier", prompt_id="s#1"),
                ev.ThoughtDelta(
                    text="The **greet** function joins strings around `name`.\n\n"
                    "- use an f-string\n- keep the signature\n",
                    subject="Planning the change",
                    prompt_id="s#1",
                ),
            )
            await _settle(pilot)
            from textual.geometry import Region

            from gemtui.tui.widgets.thought_stream import ThoughtGroup

            group = pilot.app.screen.query_one(ThoughtGroup)
            strips = group.render_lines(Region(0, 0, group.size.width, group.size.height))
            text = "\n".join(strip.text for strip in strips)
            assert "Planning the change" in text
            assert "use an f-string" in text
            assert "**" not in text
            assert "`" not in text

        assert snap_compare(_app(tmp_path), terminal_size=(110, 24), run_before=run_before)


class TestFollowTheEnd:
    def test_new_output_below_marker(self, snap_compare: Any, tmp_path: Path) -> None:
        """Scrolled back to the top of a long answer while it grows: the person's place is
        kept, and the transcript's last row is a "↓ new output below" marker (accent
        background) until they scroll to the end."""
        long_answer = "\n\n".join(f"Paragraph {n} of the answer." for n in range(1, 30))

        async def run_before(pilot: Pilot[Any]) -> None:
            app = pilot.app
            _feed(app, *_conversation_start(), ev.ContentDelta(text=long_answer, prompt_id="s#1"))  # type: ignore[arg-type]
            await _settle(pilot)
            app.main.transcript.scroll_to(y=0, animate=False, immediate=True)  # type: ignore[attr-defined]
            await _settle(pilot)
            _feed(app, ev.ContentDelta(text="\n\nMore.", prompt_id="s#1"))  # type: ignore[arg-type]
            from tests.tui.test_transcript import settle

            await settle(pilot, app.main.transcript)  # type: ignore[attr-defined]
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(100, 24), run_before=run_before)


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The status line's and the tool cards' clock stands still at t=1000 and the spinner
    does not turn: elapsed times and glyphs are fixed in every picture."""
    from gemtui.tui.widgets import transcript_blocks
    from gemtui.tui.widgets.status_line import StatusLine

    monkeypatch.setattr(StatusLine, "clock", staticmethod(lambda: 1000.0))
    monkeypatch.setattr(transcript_blocks, "clock", lambda: 1000.0)
    # the running card's spinner turns on a timer: one glyph, so a slow machine that
    # lets a frame pass before the picture is taken draws the same picture
    monkeypatch.setattr(transcript_blocks, "SPINNER", transcript_blocks.SPINNER[0])


async def _status_state(pilot: Pilot[Any], state: str) -> None:
    app: GemtuiApp = pilot.app  # type: ignore[assignment]
    _feed(app, ev.UserMessage(text="Make greet() friendlier", prompt_id="s#1"))
    _feed(app, ev.TurnStarted(turn=1, model="gemini-2.5-flash", prompt_id="s#1"))
    status = app.main.status
    status.turn_started = 1000.0 - 75  # the prompt has run for 1m15s
    if state == "streaming":
        sentence = "The greeting now uses an f-string and a docstring. "
        _feed(app, ev.ContentDelta(text=sentence * 32, prompt_id="s#1"))  # 1,600 characters
        status.first_output = 1000.0 - 10  # 400 tokens in 10 s
    elif state == "tool":
        call = ev.ToolCallSnapshot(
            call_id="c9",
            name="run_shell_command",
            args={"command": "pytest -q"},
            state=ev.ToolCallState.EXECUTING,
        )
        _feed(app, ev.ToolCallStateChanged(call=call, prompt_id="s#1"))
    elif state == "approval":
        _feed(app, _awaiting())
    status.refresh()
    await _settle(pilot)


class TestStatusLine:
    @pytest.mark.parametrize("state", ["waiting", "streaming", "tool", "approval"])
    def test_status_line_while_a_turn_runs(
        self, snap_compare: Any, tmp_path: Path, state: str
    ) -> None:
        """The status line says what the turn does and for how long: "◌ waiting for the
        model · 1m15s", "● streaming · 1m15s · 41 tok/s", "⚙ running run_shell_command ·
        1m15s", "? waiting for your approval · 1m15s"; at 80 columns the workspace and
        branch make room for it, and the approval's key hints fit on one line."""

        async def run_before(pilot: Pilot[Any]) -> None:
            await _status_state(pilot, state)

        assert snap_compare(_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


class TestMinimumSize:
    def test_too_small_says_so(self, snap_compare: Any, tmp_path: Path) -> None:
        """At 50×12 nothing of the layout is drawn; a centred warning says gemtui needs at
        least 60×15, this terminal is 50×12, and to make the window larger."""
        assert snap_compare(_app(tmp_path), terminal_size=(50, 12), run_before=_settle)


CLI_DIFF = """--- a/src/app/cli.py
+++ b/src/app/cli.py
@@ -8,9 +8,12 @@
 def main(argv: list[str] | None = None) -> int:
     parser = argparse.ArgumentParser(prog="app")
     parser.add_argument("path", help="the file to read")
+    parser.add_argument("--verbose", action="store_true", help="log every step")
     args = parser.parse_args(argv)
-    logging.basicConfig(level=logging.INFO)
+    level = logging.DEBUG if args.verbose else logging.INFO
+    logging.basicConfig(level=level)
     log.info("reading %s", args.path)
     return run(args.path)
"""

README_ANSWER = """## Plan

Add the flag to the parser and hand it to `logging`:

- `--verbose` sets the level to **DEBUG**
- without it the level stays **INFO**

```python
parser.add_argument("--verbose", action="store_true")
level = logging.DEBUG if args.verbose else logging.INFO
"""


def _readme_turn() -> list[ev.Event]:
    read = ev.ToolCallSnapshot(
        call_id="r1",
        name="read_file",
        args={"file_path": "src/app/cli.py"},
        state=ev.ToolCallState.SUCCESS,
        kind="read",
        output="import argparse\nimport logging\n\nlog = logging.getLogger(__name__)\n\n"
        "def main(argv=None):\n    ...",
        duration_ms=12,
    )
    grep = ev.ToolCallSnapshot(
        call_id="g1",
        name="grep_search",
        args={"pattern": "basicConfig", "path": "src"},
        state=ev.ToolCallState.SUCCESS,
        kind="search",
        output="src/app/cli.py:12:    logging.basicConfig(level=logging.INFO)",
        duration_ms=31,
    )
    usage = ev.Usage(input=5120, output=180, thoughts=240, cached=0, total=5540)
    return [
        ev.UserMessage(text="Add a --verbose flag to the CLI", prompt_id="s#1"),
        ev.TurnStarted(turn=1, model="gemini-2.5-flash", prompt_id="s#1"),
        ev.ThoughtDelta(
            text="`cli.py` builds an **argparse** parser and sets up logging in `main()`;"
            " the flag belongs next to `path`.",
            subject="Reading the CLI",
            prompt_id="s#1",
        ),
        ev.ToolCallStateChanged(call=read, prompt_id="s#1"),
        ev.ToolCallStateChanged(call=grep, prompt_id="s#1"),
        ev.TurnFinished(
            finish_reason="STOP", model="gemini-2.5-flash", usage=usage, cost=_priced(usage)
        ),
        ev.TurnStarted(turn=2, model="gemini-2.5-flash", prompt_id="s#1"),
    ]


class TestReadmePictures:
    """The README's two pictures (``make readme-pictures`` turns these into PNGs)."""

    def test_main_screen_mid_answer(self, snap_compare: Any, tmp_path: Path) -> None:
        """A prompt behind its bar, two one-line tool cards (read_file with folded output,
        grep_search), an answer streaming in (a heading, a list with bold and inline code,
        an open Python block); the thought pane with its subject as a heading; the usage
        table; the status line "● streaming · 14s · 44 tok/s"."""

        async def run_before(pilot: Pilot[Any]) -> None:
            app: GemtuiApp = pilot.app  # type: ignore[assignment]
            _feed(app, *_readme_turn(), ev.ContentDelta(text=README_ANSWER, prompt_id="s#1"))
            app.main.status.turn_started = 1000.0 - 14
            app.main.status.first_output = 1000.0 - 1.5
            app.main.status.refresh()
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 34), run_before=run_before)

    def test_approval_with_a_diff(self, snap_compare: Any, tmp_path: Path) -> None:
        """The same turn asking to edit src/app/cli.py: the card "? replace
        src/app/cli.py +3 args · awaiting approval" stays in view above the approval
        queue, which shows the diff with line numbers and its keys on one line; the status
        line says "? waiting for your approval"."""
        call = ev.ToolCallSnapshot(
            call_id="e1",
            name="replace",
            args={
                "file_path": "src/app/cli.py",
                "instruction": "Add --verbose",
                "old_string": "...",
                "new_string": "...",
            },
            state=ev.ToolCallState.AWAITING_APPROVAL,
            kind="edit",
            correlation_id="corr-9",
            confirmation=Confirmation(
                kind="edit", title="Edit src/app/cli.py", file_path="src/app/cli.py", diff=CLI_DIFF
            ),
        )

        async def run_before(pilot: Pilot[Any]) -> None:
            app: GemtuiApp = pilot.app  # type: ignore[assignment]
            _feed(
                app,
                *_readme_turn(),
                ev.ContentDelta(text="I'll add the flag in `cli.py`.", prompt_id="s#1"),
                ev.ToolCallStateChanged(call=call, prompt_id="s#1"),
            )
            app.main.status.turn_started = 1000.0 - 16
            app.main.status.refresh()
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 34), run_before=run_before)


REWIND_PREVIEW = """changed by hand since, restored too: src/app/cli.py
remove      tests/test_verbose.py
change back src/app/cli.py

--- a/src/app/cli.py
+++ b/src/app/cli.py
@@ -1,6 +1,4 @@
 import argparse
 parser = argparse.ArgumentParser()
-parser.add_argument("--verbose", action="store_true")
-# verbose: print every step
 args = parser.parse_args()
--- a/tests/test_verbose.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def test_verbose():
-    assert run(["--verbose"]).steps
"""


class TestRewindPicture:
    """The README's picture of /rewind (``make readme-pictures`` copies it to docs/)."""

    def test_rewind_preview(self, snap_compare: Any, tmp_path: Path) -> None:
        """/rewind after choosing "add a --verbose flag": the title names the prompt, the
        three choices (code and conversation highlighted), and the preview: a hand edit
        listed first, what is removed and changed back, then the unified diff."""
        from gemtui.agent.checkpointing import PromptPoint
        from gemtui.tui.screens.rewind import RewindScreen

        points = [
            PromptPoint("add a --verbose flag", "c2", ("src/app/cli.py", "tests/test_verbose.py")),
            PromptPoint("explain the parser", "c1", ("notes.md",)),
        ]

        async def run_before(pilot: Pilot[Any]) -> None:
            pilot.app.push_screen(RewindScreen(points, lambda point: REWIND_PREVIEW))
            await _settle(pilot)
            await pilot.press("enter")
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 34), run_before=run_before)


def _subagent_at_work() -> list[ev.Event]:
    """A generalist delegated to: one call of its done, one running, a turn billed."""
    delegation = ev.ToolCallSnapshot(
        call_id="p1",
        name="generalist",
        args={"task": "Find where greet() is called and add a test for it"},
        state=ev.ToolCallState.EXECUTING,
        kind="think",
    )
    read = ev.ToolCallSnapshot(
        call_id="p1/c1",
        name="read_file",
        args={"file_path": "src/greet.py"},
        state=ev.ToolCallState.SUCCESS,
        kind="read",
        output="def greet(name: str) -> str:\n    return 'Hello, ' + name",
        duration_ms=12,
    )
    grep = ev.ToolCallSnapshot(
        call_id="p1/c2",
        name="grep_search",
        args={"pattern": "greet\\("},
        state=ev.ToolCallState.EXECUTING,
        kind="search",
    )
    usage = ev.Usage(input=2400, output=120, total=2520)
    return [
        ev.ToolCallStateChanged(call=delegation, prompt_id="s#1"),
        ev.ContentDelta(text="Reading greet.py first.", prompt_id="s#1", parent_id="p1"),
        ev.TurnFinished(
            finish_reason="STOP",
            usage=usage,
            model="gemini-2.5-flash",
            prompt_id="s#1",
            parent_id="p1",
            cost=0.0012,
        ),
        ev.ToolCallStateChanged(call=read, prompt_id="s#1", parent_id="p1"),
        ev.ToolCallStateChanged(call=grep, prompt_id="s#1", parent_id="p1"),
    ]


class TestSubagents:
    def test_delegation_card_while_its_agent_works(self, snap_compare: Any, tmp_path: Path) -> None:
        """The generalist's card runs with its task in full; under it "⋯ 1 turn · 1 call ·
        2,520 tokens · $0.0012 · now grep_search" and, on a dotted rail, the agent's last
        words ("Reading greet.py first."). Its calls follow as cards of their own, each
        led by "↳ generalist ›": read_file done with its two output lines, grep_search
        running. The usage pane's session row counts the agent's tokens, its turn row does
        not, and a line under the cost reads "generalist: 2,520 tokens · $0.0012"."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(pilot.app, *_conversation_start(), *_subagent_at_work())  # type: ignore[arg-type]
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 30), run_before=run_before)


class _StillFleet:
    """A fleet frozen at one moment: how the agent view looks, not what it does."""

    front_id = "a1"
    limit_note = (
        "4 agents are already working ([agents] max_parallel = 4): stop one or wait for one"
        " to finish, then start this one again"
    )

    def __init__(self) -> None:
        from gemtui.tui.agent_rows import AgentRow

        t = 1_000_000.0
        self._rows = [
            AgentRow("a1", "Make greet() friendlier", "working", "gemini", "gemini-2.5-pro", t,
                     31_204, 0.21, "~/project", "main"),
            AgentRow("a2", "Write tests for the parser", "waiting", "openai", "qwen3-coder", t + 40,
                     12_880, None, "~/project/.gemini/worktrees/tests", "worktree-tests"),
            AgentRow("a3", "Why is CI slow?", "working", "gemini", "gemini-2.5-flash", t + 95,
                     8_410, 0.01, "~/project"),
            AgentRow("a4", "Bump httpx", "done", "anthropic", "claude-haiku-4-5", t + 5,
                     4_022, 0.02, "~/project/.gemini/worktrees/bump", "worktree-bump", t + 170),
            AgentRow("a5", "Port the CLI to click", "failed", "openai", "qwen3-coder", t + 12,
                     22_301, None, "~/project/.gemini/worktrees/click", "worktree-click", t + 300),
            AgentRow("a6", "Rename utils", "cancelled", "gemini", "gemini-2.5-flash", t + 30,
                     1_250, 0.0, "~/project", ended=t + 61),
        ]  # fmt: skip

    def rows(self) -> list[Any]:
        return self._rows

    def session_of(self, agent_id: str) -> Session:
        raise KeyError(agent_id)

    def bring_to_front(self, agent_id: str) -> None:
        """Frozen: nothing moves."""

    def start(self, request: Any) -> str:
        raise KeyError(request)

    def stop(self, agent_id: str) -> None:
        """Frozen: nothing stops."""

    def remove(self, agent_id: str) -> None:
        """Frozen: nothing goes."""

    def decide(self, agent_id: str, correlation_id: str, decision: Any) -> bool:
        return False

    def subscribe(self, listener: Any) -> Any:
        return lambda: None

    async def close_background(self) -> None:
        """Frozen: nothing to close."""


def _background_call() -> Any:
    from gemtui.tui.agent_rows import CallChanged

    call = ev.ToolCallSnapshot(
        call_id="c1",
        name="run_shell_command",
        args={"command": "pytest -q tests/test_parser.py"},
        state=ev.ToolCallState.AWAITING_APPROVAL,
        kind="execute",
        correlation_id="corr-1",
        confirmation=Confirmation(
            kind="exec",
            title="Run pytest -q tests/test_parser.py",
            command="pytest -q tests/test_parser.py",
            cwd="~/project/.gemini/worktrees/tests",
        ),
    )
    return CallChanged("a2", call, "b#1")


class TestAgentView:
    """Agents side by side (F5, /agents)."""

    @pytest.fixture(autouse=True)
    def _pinned_clock(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from gemtui.tui.screens.agents import AgentsScreen

        monkeypatch.setattr(AgentsScreen, "clock", staticmethod(lambda: 1_000_000.0 + 200))

    def test_agent_view(self, snap_compare: Any, tmp_path: Path) -> None:
        """Six agents, the front one marked ▶ and bold: its task, "● working", gemini:
        gemini-2.5-pro, 3m20s, 31,204 tokens, $0.21, "~/project ⎇ main". The others:
        "? waiting for you" in bold warning colour (qwen3-coder, cost "—", its worktree
        and branch), working, "✓ done" (2m45s, ended), "✗ failed", "■ cancelled" (31s).
        The header counts "Agents: 6 · 2 working · 1 waiting for you"; under the table
        an attention line and the max_parallel line; the keys at the bottom."""

        async def run_before(pilot: Pilot[Any]) -> None:
            app: GemtuiApp = pilot.app  # type: ignore[assignment]
            desk = app.attach_fleet(_StillFleet())  # type: ignore[arg-type]
            desk.lines.append("gemtui: agent waits for you: Write tests for the parser")
            await pilot.press("f5")
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(160, 24), run_before=run_before)

    def test_labelled_approval_of_a_background_agent(
        self, snap_compare: Any, tmp_path: Path
    ) -> None:
        """The main screen of the front agent; the approval queue shows the background
        agent's command: "Approve run_shell_command — a background agent's (1 of 1)", then
        in bold warning colour "agent 'Write tests for the parser' in
        ~/project/.gemini/worktrees/tests ⎇ worktree-tests", the command and where it runs.
        The status line ends "agents 2 working · 1 waits for you" in the warning colour."""

        async def run_before(pilot: Pilot[Any]) -> None:
            app: GemtuiApp = pilot.app  # type: ignore[assignment]
            desk = app.attach_fleet(_StillFleet())  # type: ignore[arg-type]
            _feed(app, *_conversation_start())
            desk.apply(_background_call())
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(140, 36), run_before=run_before)
