"""The transcript: what a person sees of the conversation, drawn line by line."""

from __future__ import annotations

import math
import re
import time
from typing import Any

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot

from gemtui.bus.events import ToolCallSnapshot, ToolCallState
from gemtui.tui.widgets import transcript_blocks
from gemtui.tui.widgets.transcript import Transcript

SIZE = (100, 30)


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def screen_lines(transcript: Transcript) -> list[str]:
    return [transcript.render_line(y).text.rstrip() for y in range(transcript.size.height)]


def screen_text(transcript: Transcript) -> str:
    return "\n".join(screen_lines(transcript))


async def settle(pilot: Pilot[Any], transcript: Transcript) -> None:
    """Wait until streamed text has had its frame and the screen is drawn.

    Frames come from a timer, so the bound is time, not a count of idle turns: a loaded
    machine gives the loop many idle turns between two frames.
    """
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        await pilot.pause()
        if not transcript.rendering_pending:
            return
        await pilot.pause(0.01)  # a poll interval: the frame timer fires between polls
    raise AssertionError("the transcript never caught up")


def tool(state: ToolCallState, output: str | None = None, **extra: Any) -> ToolCallSnapshot:
    return ToolCallSnapshot(
        call_id="call-1",
        name="run_shell_command",
        args={"command": "pytest -q"},
        state=state,
        description="pytest -q",
        output=output,
        **extra,
    )


class TestConversation:
    async def test_user_message_and_streamed_answer_appear(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.add_user("How do I run the tests?")
            transcript.begin_answer()
            for chunk in [
                "Run ",
                "**pytest**",
                " from the ",
                "project root.\n\n",
                "Then rel",
                "ax.",
            ]:
                transcript.append_answer(chunk)
            await settle(pilot, transcript)
            lines = screen_lines(transcript)
            assert lines[0] == "▌ How do I run the tests?"
            assert "Run pytest from the project root." in lines[2]
            assert "Then relax." in screen_text(transcript)
            transcript.end_answer()
            assert (
                transcript.answer_text() == "Run **pytest** from the project root.\n\nThen relax."
            )
            assert transcript.messages() == [
                ("user", "How do I run the tests?"),
                ("model", "Run **pytest** from the project root.\n\nThen relax."),
            ]

    async def test_many_chunks_cost_few_renders(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.begin_answer()
            for _ in range(470):
                transcript.append_answer("tok ")
            await settle(pilot, transcript)
            assert transcript._last_answer is not None
            assert transcript._last_answer.stream.render_count <= 3
            assert "tok tok" in screen_text(transcript)

    async def test_discard_answer_removes_the_partial_text(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.add_user("hi")
            transcript.begin_answer()
            transcript.append_answer("first answer")
            transcript.end_answer()
            transcript.begin_answer()
            transcript.append_answer("a broken partial ans")
            await settle(pilot, transcript)
            assert "a broken partial ans" in screen_text(transcript)
            transcript.discard_answer()
            await pilot.pause()
            assert "a broken partial" not in screen_text(transcript)
            assert transcript.answer_text() == "first answer"
            transcript.begin_answer()
            transcript.append_answer("the retried answer")
            transcript.end_answer()
            await pilot.pause()
            assert "the retried answer" in screen_text(transcript)
            assert [role for role, _ in transcript.messages()] == ["user", "model", "model"]

    async def test_thought_marker_and_notice(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.add_thought_marker("Planning the change")
            transcript.add_thought_marker(None)
            transcript.add_notice("Quota exhausted. Wait 30 s or pick another model.", "error")
            await pilot.pause()
            text = screen_text(transcript)
            assert "✻ Thinking: Planning the change" in text
            assert "✻ Thinking…" in text
            assert "✗ Quota exhausted. Wait 30 s or pick another model." in text

    async def test_last_code_block_and_clear(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.begin_answer()
            transcript.append_answer("```py\nold = 1\n```\n\n```sh\nls -la\n```\n")
            transcript.end_answer()
            transcript.begin_answer()
            transcript.append_answer("no code here")
            transcript.end_answer()
            assert transcript.last_code_block() == "ls -la"
            transcript.clear()
            await pilot.pause()
            assert transcript.line_count == 0
            assert transcript.messages() == []
            assert transcript.last_code_block() is None
            assert screen_text(transcript).strip() == ""


class TestToolCards:
    async def test_states_from_approval_to_done(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.upsert_tool(tool(ToolCallState.AWAITING_APPROVAL))
            await pilot.pause()
            assert "? run_shell_command  pytest -q  · awaiting approval" in screen_text(transcript)
            assert "pytest -q  pytest -q" not in screen_text(transcript)  # named once

            transcript.upsert_tool(tool(ToolCallState.EXECUTING))
            await pilot.pause()
            header = screen_lines(transcript)[0]
            assert header[0] in transcript_blocks.SPINNER
            assert re.search(r"  pytest -q  · running \d+(ms|\.\ds)$", header), header

            output = "\n".join(f"line {n}" for n in range(1, 11))
            transcript.upsert_tool(tool(ToolCallState.SUCCESS, output, duration_ms=1234))
            await pilot.pause()
            lines = screen_lines(transcript)
            assert lines[0] == "✓ run_shell_command  pytest -q  · done in 1.2s"
            assert lines[1:5] == [
                "  │ line 1",
                "  │ line 2",
                "  │ line 3",
                "  │ … 7 more lines · ctrl+o to expand",
            ]
            assert transcript._spin_timer is None  # the spinner stops with the last running call

            transcript.toggle_tool("call-1")
            await pilot.pause()
            lines = screen_lines(transcript)
            assert lines[1:11] == [f"  │ line {n}" for n in range(1, 11)]
            assert "more lines" not in screen_text(transcript)

    async def test_the_key_argument_in_full_and_the_rest_folded(self) -> None:
        """An edit card names the tool once, shows the path, folds the other arguments
        (instruction, old/new text) behind "+3 args"; expanding lists them."""
        app = TranscriptApp()
        edit = ToolCallSnapshot(
            call_id="e1",
            name="replace",
            args={
                "file_path": "src/greet.py",
                "instruction": "Make it friendlier",
                "old_string": "return 'hi'",
                "new_string": "return 'hello'",
            },
            state=ToolCallState.SUCCESS,
            description="replace(file_path='src/greet.py', instruction='Make it friendlier')",
            output="Edited src/greet.py",
            duration_ms=40,
        )
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.upsert_tool(edit)
            await pilot.pause()
            lines = screen_lines(transcript)
            assert lines[0] == "✓ replace  src/greet.py  +3 args  · done in 40ms"
            assert lines[1] == "  │ Edited src/greet.py"
            assert transcript.toggle_last_tool()
            await pilot.pause()
            lines = screen_lines(transcript)
            assert lines[0] == "✓ replace  src/greet.py  · done in 40ms"
            assert lines[1:4] == [
                "  │ instruction: Make it friendlier",
                "  │ old_string: return 'hi'",
                "  │ new_string: return 'hello'",
            ]

    async def test_a_long_command_is_shown_in_full(self) -> None:
        app = TranscriptApp()
        command = "python -m pytest " + " ".join(f"tests/test_{n}.py" for n in range(12))
        call = ToolCallSnapshot(
            call_id="s1",
            name="run_shell_command",
            args={"command": command},
            state=ToolCallState.AWAITING_APPROVAL,
        )
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.upsert_tool(call)
            await pilot.pause()
            lines = screen_lines(transcript)
            assert lines[0] == "? run_shell_command  · awaiting approval"
            text = " ".join(line.strip() for line in lines[1:4])
            assert command in text
            assert "…" not in text

    async def test_failed_and_cancelled(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.upsert_tool(tool(ToolCallState.ERROR, error="exit code 2"))
            await pilot.pause()
            assert screen_lines(transcript)[:2] == [
                "✗ run_shell_command  pytest -q  · failed",  # no duration known
                "  │ exit code 2",
            ]
            transcript.upsert_tool(tool(ToolCallState.CANCELLED))
            await pilot.pause()
            assert screen_lines(transcript)[0] == "⊘ run_shell_command  pytest -q  · cancelled"

    async def test_repaired_arguments_are_noted_under_the_header(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            note = "arguments repaired: cmd → command"
            transcript.upsert_tool(tool(ToolCallState.SUCCESS, "ok", duration_ms=10, repair=note))
            await pilot.pause()
            assert screen_lines(transcript)[:3] == [
                "✓ run_shell_command  pytest -q  · done in 10ms",
                "  ↺ arguments repaired: cmd → command",
                "  │ ok",
            ]

    async def test_a_card_updated_in_the_middle_moves_what_follows(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.upsert_tool(tool(ToolCallState.EXECUTING))
            transcript.add_notice("after the card")
            await pilot.pause()
            assert screen_lines(transcript)[2] == "ℹ after the card"
            transcript.upsert_tool(tool(ToolCallState.SUCCESS, "a\nb"))
            await pilot.pause()
            assert screen_lines(transcript)[4] == "ℹ after the card"

    async def test_clicking_a_card_expands_it(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            output = "\n".join(f"out {n}" for n in range(6))
            transcript.upsert_tool(tool(ToolCallState.SUCCESS, output))
            await pilot.pause()
            await pilot.click(Transcript, offset=(5, 0))
            await pilot.pause()
            assert "out 5" in screen_text(transcript)


class TestScrolling:
    async def test_follows_the_end_while_streaming(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.begin_answer()
            for n in range(80):
                transcript.append_answer(f"paragraph {n}\n\n")
            transcript.append_answer("the very end")
            await settle(pilot, transcript)
            assert transcript.follow
            assert transcript.scroll_offset.y == transcript.max_scroll_y > 0
            assert "the very end" in screen_text(transcript)

    async def test_scrolling_up_stops_following_and_the_end_resumes_it(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            for n in range(40):
                transcript.add_notice(f"notice {n}")
            await pilot.pause()
            transcript.focus()
            await pilot.press("pageup")
            await pilot.pause()
            assert not transcript.follow
            top = transcript.scroll_offset.y
            transcript.begin_answer()
            transcript.append_answer("new text while reading")
            await settle(pilot, transcript)
            assert transcript.scroll_offset.y == top  # the reader is left alone
            await pilot.press("end")
            await pilot.pause()
            assert transcript.follow
            assert "new text while reading" in screen_text(transcript)

    async def test_a_thousand_turns_then_one_more(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            for n in range(1_000):
                transcript.add_user(f"question {n}")
                transcript.begin_answer()
                transcript.append_answer(f"answer {n}")
                transcript.end_answer()
            await pilot.pause()
            # each turn: user line + gap, answer line + gap
            assert transcript.line_count == 4_000
            assert transcript.virtual_size.height == 4_000
            transcript.add_user("question 1000")
            transcript.begin_answer()
            transcript.append_answer("answer **1000**")
            transcript.end_answer()
            await pilot.pause()
            assert transcript.line_count == 4_004
            lines = screen_lines(transcript)
            assert lines[-4:] == ["▌ question 1000", "", "  answer 1000", ""]
            assert len(transcript.messages()) == 2_002
            transcript.scroll_home(animate=False)
            await pilot.pause()
            assert screen_lines(transcript)[:3] == ["▌ question 0", "", "  answer 0"]
            assert not transcript.follow

    async def test_resize_rewraps_visible_blocks(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.add_user("word " * 15)
            await pilot.pause()
            assert screen_lines(transcript)[1] == ""
            await pilot.resize_terminal(60, 30)
            await pilot.pause()
            assert screen_lines(transcript)[1].startswith("▌ word")


class TestSnapshot:
    def test_answer_mid_stream_with_tool_card(self, snap_compare: Any) -> None:
        """You should see, on a dark surface: a user message behind a blue bar; a green
        "✓ read_file  src/app.py  · done in 210ms" card (tick and state green, name bold)
        with three output lines and
        "… 2 more lines · ctrl+o to expand"; then an answer still streaming: a bold
        "Plan" heading on the left,
        a two-item bullet list and a Python code block in monokai colours on its dark
        panel (`def` cyan, `main` green, the string yellow) that is still open, so
        nothing follows it. The card's bar and description are dimmer than its name."""

        async def run_before(pilot: Pilot[Any]) -> None:
            transcript = pilot.app.query_one(Transcript)
            transcript.add_user("Add a --verbose flag to the CLI.")
            transcript.upsert_tool(
                ToolCallSnapshot(
                    call_id="t1",
                    name="read_file",
                    args={"path": "src/app.py"},
                    state=ToolCallState.SUCCESS,
                    description="src/app.py",
                    output="import argparse\nimport logging\nimport sys\nfrom app import cli\nfrom app import log",
                    duration_ms=210,
                )
            )
            transcript.begin_answer()
            answer = (
                "# Plan\n\nTwo changes:\n\n- add the flag\n- pass it to the logger\n\n"
                '```python\ndef main() -> None:\n    parser.add_argument("--verbose")\n'
                "    if args.verbose:\n        logging.basicConfig(level=10)\n"
            )
            for start in range(0, len(answer), 7):
                transcript.append_answer(answer[start : start + 7])
            await settle(pilot, transcript)

        assert snap_compare(TranscriptApp(), terminal_size=SIZE, run_before=run_before)


class TestFloodCatchUp:
    async def test_an_answer_ended_while_behind_is_still_drawn_to_its_end(
        self, monkeypatch: Any
    ) -> None:
        """A flood that ends before the renderer caught up: ending the answer cancelled the
        pending frame and the rest was never drawn (the peer benchmark's end marker never
        showed). Each render now freezes one piece at least, and the catch-up goes on."""
        from gemtui.tui.widgets import answer_render

        monkeypatch.setattr(answer_render, "FREEZE_SECONDS_PER_RENDER", 0.0)
        sections = [
            f"## Section {i}\n\nlorem ipsum **dolor** sit amet `call_{i}()` " * 3 + "\n\n- a\n- b\n"
            for i in range(60)
        ]
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.begin_answer()
            for section in sections:
                transcript.append_answer(section)
            transcript.append_answer("THE-END\n")
            await pilot.pause()
            transcript.end_answer()  # behind at this point: one piece frozen per render
            await settle(pilot, transcript)
            assert "THE-END" in screen_text(transcript)
            assert transcript.follow

    async def test_earlier_answers_still_catching_up_keep_their_frames(
        self, monkeypatch: Any
    ) -> None:
        """Ending the next answer cancelled the frame that earlier answers, still behind,
        were waiting for: they never finished (and ``rendering_pending`` stayed True)."""
        from gemtui.tui.widgets import answer_render

        monkeypatch.setattr(answer_render, "FREEZE_SECONDS_PER_RENDER", 0.0)
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            for turn in range(2):
                transcript.add_user(f"question {turn}")
                transcript.begin_answer()
                for i in range(8):
                    transcript.append_answer(f"Answer {turn} paragraph {i} **bold**.\n\n")
                transcript.end_answer()  # behind: one paragraph drawn per frame
            transcript.add_user("last question")
            transcript.begin_answer()
            transcript.append_answer("A short last answer.")
            transcript.end_answer()  # not behind itself: it used to cancel their frame
            await settle(pilot, transcript)
            assert not transcript.rendering_pending
            assert all(not b.stream.behind for b in transcript._blocks.blocks if b.role == "model")


class TestBoundedRenderCache:
    async def test_old_blocks_drop_their_lines_and_draw_again_when_scrolled_to(self) -> None:
        """A long session keeps only the recently drawn blocks' lines (a budget of lines);
        scrolling back renders a released answer again, the same as before."""
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript._rendered.limit = 200
            for n in range(60):
                transcript.add_user(f"question {n}")
                transcript.begin_answer()
                transcript.append_answer(f"## Answer {n}\n\nSome **bold** text and `code` {n}.\n")
                transcript.end_answer()
            await settle(pilot, transcript)
            first = transcript._blocks.blocks[1]
            assert transcript._rendered.released > 0
            assert first._strips is None  # released: only its height is kept
            assert first.height > 0
            transcript.scroll_home(animate=False, immediate=True)
            await settle(pilot, transcript)
            await pilot.pause()
            shown = screen_text(transcript)
            assert "question 0" in shown
            assert "Some bold text and code 0." in shown
            assert "Answer 0" in shown


class TestStreamingRepaint:
    """A streamed chunk repaints the answer's lines, not the view and not the screen's
    layout (issue 36: typing lagged while an answer streamed)."""

    async def test_a_chunk_that_keeps_the_height_repaints_only_the_answer(self) -> None:
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            for n in range(40):
                transcript.add_notice(f"notice {n}")
            transcript.begin_answer()
            transcript.append_answer("the first words")
            await settle(pilot, transcript)
            await pilot.pause()
            painted = transcript.repainted_lines
            transcript.append_answer(" and a zebrafinch")
            await settle(pilot, transcript)
            await pilot.pause()
            repainted = transcript.repainted_lines - painted
            assert 0 < repainted < transcript.size.height
            # what reaches the terminal is the new text: the cached lines were repainted
            assert "zebrafinch" in app.export_screenshot()
            assert "the first words and a zebrafinch" in screen_text(transcript)

            painted = transcript.repainted_lines  # control: a new line moves every line
            transcript.append_answer("\n\na second paragraph with a kingfisher")
            await settle(pilot, transcript)
            await pilot.pause()
            assert transcript.repainted_lines - painted >= transcript.size.height
            assert "kingfisher" in app.export_screenshot()
            transcript.end_answer()
            await pilot.pause()
            assert transcript.answer_text() == (
                "the first words and a zebrafinch\n\na second paragraph with a kingfisher"
            )


class TestStreamingCostsNoLayout:
    async def test_new_lines_scroll_without_laying_out_the_screen(self) -> None:
        """Each new line of a streamed answer grew the transcript's ``virtual_size``, a
        layout reactive: the whole screen was laid out and repainted per line, and a key
        typed meanwhile waited for it (issue 36). Now only the first line (the first tip
        watches for it) lays out; the view still follows the end, scrollbar included."""
        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript = app.query_one(Transcript)
            transcript.add_user("Tell me a lot")
            transcript.begin_answer()
            await settle(pilot, transcript)
            layouts = 0
            refresh_layout = app.screen._refresh_layout

            def counted(*args: Any, **kwargs: Any) -> None:
                nonlocal layouts
                layouts += 1
                refresh_layout(*args, **kwargs)

            app.screen._refresh_layout = counted  # type: ignore[method-assign]
            for n in range(80):
                transcript.append_answer(f"Paragraph {n} of the answer.\n\n")
                await settle(pilot, transcript)
            assert layouts == 0
            assert transcript.virtual_size.height == transcript.line_count > SIZE[1]
            assert transcript.scroll_y == transcript.max_scroll_y > 0
            bar = transcript.vertical_scrollbar
            assert bar.window_virtual_size == transcript.line_count
            assert "Paragraph 79 of the answer." in screen_text(transcript)
            transcript.end_answer()


async def an_answer_drawn(pilot: Pilot[Any]) -> tuple[Transcript, transcript_blocks.AnswerBlock]:
    """An answer begun, its first paragraph drawn, still streaming."""
    transcript = pilot.app.query_one(Transcript)
    transcript.begin_answer()
    transcript.append_answer("First paragraph.\n\n")
    await settle(pilot, transcript)
    answer = transcript._answer
    assert answer is not None
    return transcript, answer


class TestAKeysFrameDoesNotRenderTheTail:
    async def test_a_frame_drawn_meanwhile_leaves_the_new_text_to_the_flush(
        self, monkeypatch: Any
    ) -> None:
        """A frame drawn for something else while an answer streams (a key typed) rendered
        the answer's new tail first, a code block's highlighting included: the key waited
        for it (issue 36). Now the flush renders it, at its own pace; a frame only paints.
        The flush is held here (its interval an hour) so no timing decides the outcome."""
        from gemtui.tui.widgets import flush_pace

        app = TranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript, answer = await an_answer_drawn(pilot)
            rendered = answer.stream.render_count
            monkeypatch.setattr(flush_pace, "FRAME", 3600.0)
            transcript.append_answer("```python\nprint('hello')\n")  # its flush: in an hour
            for _ in range(3):  # frames drawn for something else, as the compositor asks
                transcript.render_lines(Region(0, 0, *transcript.size))
                await pilot.pause()
            assert answer.stream.render_count == rendered
            assert transcript.rendering_pending
            assert "print" not in screen_text(transcript)
            transcript.end_answer()  # the answer's end renders what is left, at once
            await pilot.pause()
            assert "print('hello')" in screen_text(transcript)


class KeyedTranscriptApp(TranscriptApp):
    key_at = 0.0
    """When the last key arrived, as ``GemtuiApp`` keeps it."""


class TestTypingComesBeforeStreaming:
    async def test_the_answers_flush_waits_while_a_keys_frame_is_due(
        self, monkeypatch: Any
    ) -> None:
        """A key's frame is composed before the streamed answer's next re-render (issue 36):
        here a key's frame is always due (typing never stops) and no bound applies, so the
        new text waits, however many flush intervals pass; once typing stops, it is drawn."""
        from gemtui.tui.widgets import flush_pace

        monkeypatch.setattr(flush_pace, "KEY_FIRST_AT_MOST", math.inf)
        app = KeyedTranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript, answer = await an_answer_drawn(pilot)
            rendered = answer.stream.render_count
            app.key_at = math.inf
            transcript.append_answer("Second paragraph.\n")
            for _ in range(5):
                await pilot.pause(0.02)  # a poll interval: several flush intervals pass
            assert answer.stream.render_count == rendered
            assert transcript.rendering_pending
            assert "Second" not in screen_text(transcript)
            app.key_at = 0.0
            await settle(pilot, transcript)
            assert "Second paragraph." in screen_text(transcript)

    async def test_keys_that_never_stop_put_the_answer_off_only_so_long(self) -> None:
        """A key held down repeats at 60 Hz or more: each repeat would put the answer off
        again. Past ``flush_pace.KEY_FIRST_AT_MOST`` since its last flush, the answer is drawn."""
        app = KeyedTranscriptApp()
        async with app.run_test(size=SIZE) as pilot:
            transcript, _ = await an_answer_drawn(pilot)
            app.key_at = math.inf
            transcript.append_answer("Second paragraph.\n")
            await settle(pilot, transcript)
            assert "Second paragraph." in screen_text(transcript)
