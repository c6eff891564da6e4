"""The conversation: user messages, streamed answers, tool cards and notices.

A Line API view (:class:`~textual.scroll_view.ScrollView`): it holds a list of blocks,
each caching its rendered lines, and draws only the lines on screen. Adding a turn to a
long session renders one block, not the session; a streaming answer re-renders only its
last Markdown block, at most once per frame however many chunks arrive.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.theme import Theme
from textual.events import Click, Resize
from textual.geometry import Region, Size
from textual.reactive import var
from textual.strip import Strip
from textual.timer import Timer

from gemtui.tui.widgets.flush_pace import flush_delay, key_first, last_key
from gemtui.tui.widgets.markdown_look import MARKDOWN_CSS, MARKDOWN_STYLES, markdown_theme
from gemtui.tui.widgets.render_cache import RenderedLines
from gemtui.tui.widgets.transcript_blocks import (
    AnswerBlock,
    Block,
    BlockList,
    NoticeBlock,
    RenderContext,
    ThoughtMarkerBlock,
    ToolBlock,
    UserBlock,
)
from gemtui.tui.widgets.transcript_text import TranscriptText, centred_marker

if TYPE_CHECKING:  # neither pydantic nor the event classes before the first frame
    from gemtui.bus.events import ToolCallSnapshot
    from gemtui.store.subagent_log import SubagentTranscript
    from gemtui.wire import Content

__all__ = ["Transcript"]

MARKER = " ↓ new output below "
_SPIN_INTERVAL = 0.1
# fmt: off
_STYLE_NAMES = (
    "user-bar", "user", "muted", "tool-name", "running", "success", "error", "warning",
    "marker", "find", "find-current",
    *MARKDOWN_STYLES,
)
# fmt: on


class Transcript(TranscriptText, can_focus=True):
    """The conversation, drawn line by line from per-block caches.

    Follows the end while content arrives, until the person scrolls up; scrolling back
    to the end follows again.
    """

    COMPONENT_CLASSES = {f"transcript--{name}" for name in _STYLE_NAMES}

    DEFAULT_CSS = (
        """
    Transcript {
        background: $surface;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        padding: 0 1;
        & > .transcript--user-bar { color: $primary; }
        & > .transcript--user { text-style: bold; }
        & > .transcript--muted { color: $text-muted; }
        & > .transcript--tool-name { text-style: bold; }
        & > .transcript--running { color: $primary; }
        & > .transcript--success { color: $success; }
        & > .transcript--error { color: $error; }
        & > .transcript--warning { color: $warning; }
        & > .transcript--marker { color: $background; background: $primary; text-style: bold; }
        & > .transcript--find { background: $warning 30%; }
        & > .transcript--find-current { color: $background; background: $warning; }
    }
    """
        + "Transcript {"
        + MARKDOWN_CSS.format(p="transcript")
        + "}"
    )

    follow: var[bool] = var(True)
    """Keep the end in view as content arrives; cleared when the person scrolls up."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._blocks = BlockList()
        self._rendered = RenderedLines()
        """Blocks keeping their drawn lines (the rest keep only their height)."""
        self._width = 0
        self._answer: AnswerBlock | None = None
        self._last_answer: AnswerBlock | None = None
        self._tools: dict[str, ToolBlock] = {}
        self._flush_timer: Timer | None = None
        self._behind: list[AnswerBlock] = []
        """Answers whose last render left text for the next frames (a flood)."""
        self._last_flush = 0.0
        self._spin_timer: Timer | None = None
        self._style_key: tuple[object, ...] | None = None
        self._markdown: Theme | None = None
        self._styles_changed = False
        self._line_style = Style()  # the widget's style, looked up once per draw

    unseen: var[bool] = var(False)
    """Output arrived below the view while the person had scrolled up: a marker says so."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.follow = round(new_value) >= self.max_scroll_y
        if self.follow and self.unseen:
            self.unseen = False
            self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._styles_changed and self._blocks:  # empty (the first frame): nothing to restyle
            self._check_styles()
        self._measure_visible()
        self._line_style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if self.unseen and y == self.scrollable_content_region.height - 1:
            marker = self._component_style("marker")
            return centred_marker(MARKER, self.app.console, width, marker, self.rich_style)
        line = self.scroll_offset.y + y
        if not self._blocks or line >= self.line_count or self._width <= 0:
            return Strip.blank(width, self._line_style)
        index, offset = self._blocks.locate(line)
        block = self._blocks.blocks[index]
        strips = block.drawn if self._left_to_flush(block) else block.lines(self._render_context())
        strip = strips[offset] if offset < len(strips) else Strip.blank(width)
        if strip.cell_length != width:
            strip = strip.crop_extend(0, width, None)
        return self.decorate_line(strip.apply_style(self._line_style), line)

    # -- public API -------------------------------------------------------------------

    def add_user(self, text: str) -> None:
        """Add a message the person sent."""
        self._end_answer_if_open()
        self._append(UserBlock(text))

    def mark_cancelled(self) -> None:
        """The latest prompt was cancelled: its block says so."""
        if (block := self._blocks.cancel_last_prompt()) is not None:
            self._rerender(block)

    def begin_answer(self) -> None:
        """Start a new answer block that :meth:`append_answer` streams into."""
        self._end_answer_if_open()
        self._answer = AnswerBlock(self._code_theme())
        self._last_answer = self._answer
        self._append(self._answer)

    def append_answer(self, text: str) -> None:
        """Add text to the answer in flight; it is drawn on the next frame."""
        if self._answer is None:
            self.begin_answer()
        assert self._answer is not None
        self._answer.stream.append(text)
        self._schedule_flush()

    def end_answer(self) -> None:
        """The answer is complete: render what is left now."""
        answer = self._answer
        if answer is None:
            return
        self._cancel_flush()
        answer.stream.finish()
        self._answer = None
        self._rerender(answer)
        if self._behind:  # earlier answers still catching up keep their frames
            self._schedule_flush()

    def discard_answer(self) -> None:
        """Throw away the answer in flight (the stream is being retried)."""
        answer = self._answer
        if answer is None:
            return
        self._cancel_flush()
        self._answer = None
        if answer in self._behind:
            self._behind.remove(answer)
        index = self._blocks.remove(answer)
        self._last_answer = next(
            (b for b in reversed(self._blocks.blocks) if isinstance(b, AnswerBlock)), None
        )
        self._relayout(index)
        if self._behind:
            self._schedule_flush()

    @property
    def answer_open(self) -> bool:
        """An answer is streaming (the one record of it: the screen asks here)."""
        return self._answer is not None

    def answer_text(self) -> str:
        """The text of the answer in flight, or of the last one."""
        return self._last_answer.text if self._last_answer is not None else ""

    def add_thought_marker(self, subject: str | None) -> None:
        """A dim line showing that the model thought here."""
        self._append(ThoughtMarkerBlock(subject))

    def subagent_text(self, parent_id: str, text: str) -> None:
        """A subagent's own words: on its delegation card (expanded: all of them)."""
        block = self._tools.get(parent_id)
        if block is not None:
            block.progress.add_text(text)
            self._rerender(block)

    def subagent_turn(self, parent_id: str, tokens: int, cost: float | None) -> str:
        """A subagent's model call finished: its delegation card counts it. Returns the
        agent's name (the card's tool)."""
        block = self._tools.get(parent_id)
        if block is None:
            return "subagent"
        block.progress.turns += 1
        block.progress.tokens += tokens
        if cost is not None:
            block.progress.cost = (block.progress.cost or 0.0) + cost
        self._rerender(block)
        return block.snapshot.name

    def upsert_tool(self, snapshot: ToolCallSnapshot, parent_id: str = "") -> None:
        """Add the card of a tool call, or redraw it with its new state; a subagent's
        card (``parent_id``: the call that started it) names the agent."""
        block = self._tools.get(snapshot.call_id)
        if block is None:
            self._end_answer_if_open()
            block = self._tools[snapshot.call_id] = ToolBlock(snapshot)
            if parent_id:
                parent = self._tools.get(parent_id)
                block.agent = parent.snapshot.name if parent is not None else "subagent"
            self._append(block)
        else:
            block.update(snapshot)
            self._rerender(block)
        parent = self._tools.get(parent_id) if parent_id else None
        if parent is not None:  # the delegation card shows what its agent is doing
            parent.progress.current = None if snapshot.state.terminal else snapshot.name
            parent.progress.calls += 1 if snapshot.state.terminal else 0
            self._rerender(parent)
        self._update_spinner()

    def append_tool_output(self, call_id: str, text: str) -> None:
        """Show a running call's live output in its card (its last lines)."""
        block = self._tools.get(call_id)
        if block is not None:
            block.append_live(text)
            self._rerender(block)

    def toggle_tool(self, call_id: str) -> None:
        """Show all of a tool call's output, or only its first lines again."""
        block = self._tools.get(call_id)
        if block is not None:
            block.expanded = not block.expanded
            block.invalidate()
            self._rerender(block)

    def scroll_to_latest(self) -> None:
        """Follow the end again (a new prompt, a call awaiting approval): the work the
        person has to see next is there, however far up they had scrolled."""
        self.follow = True
        self._scroll_to_end()

    def toggle_last_tool(self) -> bool:
        """Expand (or fold again) the most recent tool card with something folded."""
        for block in reversed(self._tools.values()):
            if block.foldable:
                self.toggle_tool(block.call_id)
                return True
        return False

    def last_output_file(self) -> str | None:
        """The saved whole output of the most recent card that has one."""
        for block in reversed(self._tools.values()):
            if block.snapshot.output_file:
                return block.snapshot.output_file
        return None

    def add_notice(self, text: str, severity: str = "information") -> None:
        """An inline error, warning or note ("error", "warning", "information")."""
        self._append(NoticeBlock(text, severity))

    def clear(self) -> None:
        """Remove everything."""
        self._cancel_flush()
        self._behind.clear()
        self._blocks.clear()
        self._rendered.clear()
        self._tools.clear()
        self._answer = self._last_answer = None
        self._update_spinner()
        self.follow = True
        self._relayout(0)

    def replay(
        self,
        history: list[Content],
        describe: Callable[[str, dict[str, Any]], str] | None = None,
        calls: Mapping[str, Mapping[str, Any]] | None = None,
        subagents: Mapping[str, SubagentTranscript] | None = None,
    ) -> None:
        """Draw a saved conversation: user prompts, answers, and tool calls as done cards
        (``describe`` gives a card the line a live call shows: its command, its path;
        ``calls``, the store's record of each call by id, gives it the state, output,
        diff and duration the live card had; ``subagents``, what each delegation's agent
        said by the call that started it, fills its card as the live one was filled)."""
        # Only a resumed session replays: this brings pydantic's wire types, which the
        # first frame of a new session has no use for (issue 26).
        from gemtui.tui.replayed_calls import replay_history

        replay_history(self, history, describe, calls)
        for parent_id, story in (subagents or {}).items():
            self._replay_subagent(parent_id, story)

    def _replay_subagent(self, parent_id: str, story: SubagentTranscript) -> None:
        """A saved delegation's card gets its agent's turns, tokens and words back (once:
        a story drawn in several runs fills each card the first time it is there)."""
        block = self._tools.get(parent_id)
        if block is None or block.progress.turns or block.progress.said:
            return
        from gemtui.tui.replayed_calls import subagent_words

        said = [subagent_words(c) for c in story.contents if c.role == "model"]
        block.progress.add_text("\n".join(s for s in said if s))
        block.progress.turns = story.turns
        block.progress.tokens = story.tokens
        block.invalidate()
        self._rerender(block)

    @property
    def line_count(self) -> int:
        """Total lines of the transcript (the virtual height)."""
        return self._blocks.line_count

    @property
    def rendering_pending(self) -> bool:
        """True while streamed text waits for its frame."""
        return bool(self._behind) or (self._answer is not None and self._answer.stream.dirty)

    # -- layout -------------------------------------------------------------------------

    def _render_context(self) -> RenderContext:
        if self._markdown is None:
            self._markdown = markdown_theme(self._component_style)
        return RenderContext(
            self.app.console,
            self._width,
            self._component_style,
            self._code_theme(),
            self._markdown,
        )

    def _component_style(self, name: str) -> Style:
        return self.get_component_rich_style(f"transcript--{name}")

    def _code_theme(self) -> str:
        try:
            dark = self.app.current_theme.dark
        except Exception:  # not attached to an app yet
            dark = True
        return "monokai" if dark else "friendly"

    def _append(self, block: Block) -> None:
        index = self._blocks.append(block)
        if self._width > 0:
            block.lines(self._render_context())
            self._drawn(block)
        self._relayout(index)

    def _rerender(self, block: Block) -> None:
        height = block.height
        if self._width > 0:
            block.lines(self._render_context())
            self._drawn(block)
            self._catch_up_later(block)
        if block.height == height and self.is_attached:  # no layout: paint its lines
            self._repaint_block(self._blocks.index(block))
        else:
            self._relayout(self._blocks.index(block))

    def _drawn(self, block: Block) -> None:
        """Keep ``block``'s lines; release the least recently drawn past the budget."""
        visible = self._visible_blocks()
        self._rendered.touch(block, lambda b: b in visible or b is self._answer)

    def _visible_blocks(self) -> set[Block]:
        height = self.scrollable_content_region.height if self.is_attached else 0
        found = self._blocks.visible(self.scroll_offset.y, height) if self._blocks else []
        return {self._blocks.blocks[i] for i in found}

    def _relayout(self, index: int) -> None:
        """Recompute line offsets from block ``index`` on, then resize and scroll."""
        before = self.virtual_size.height
        self._blocks.relayout(index)
        self._set_virtual_size(Size(self._width, self.line_count))
        if self.follow:
            self._scroll_to_end()
        elif self.line_count > before and index >= len(self._blocks) - 3:
            self.unseen = True  # new output at the end, not a re-measure further up
        self.repainted_lines += self.size.height
        self.refresh()

    def _set_virtual_size(self, size: Size) -> None:
        """The scrollable height, without a layout of the whole screen once laid out.

        ``virtual_size`` is a layout reactive: each new line of a streamed answer laid out
        every widget on the screen and repainted it (most of a frame's cost while an
        answer streams, and what a key typed then waited for). The transcript's own size
        does not depend on it and its scrollbar is always shown, so once it has a size
        only the scrollbar and the scroll limits need to follow.
        """
        if size == self.virtual_size:
            return
        first = not self.virtual_size.height  # watched: the first tip leaves then
        if first or not self.is_attached or not self.size or not self.container_size:
            self.virtual_size = size
            return
        self.set_reactive(Transcript.virtual_size, size)
        self._scroll_update(size)
        self.refresh()

    def _scroll_to_end(self) -> None:
        if self.is_attached:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)

    def _follow_end(self) -> None:
        """A scroll to the end asked for a frame ago: not if the person scrolled up since."""
        if self.follow:
            self._scroll_to_end()

    def _measure_visible(self) -> None:
        """Render stale blocks on screen; fix the layout if their heights changed."""
        if self._width <= 0 or not self._blocks:
            return
        ctx = self._render_context()
        for _ in range(3):  # heights may shift what is visible; settle in a few passes
            visible = self._blocks.visible(
                self.scroll_offset.y, self.scrollable_content_region.height
            )
            changed: int | None = None
            for i in visible:
                block = self._blocks.blocks[i]
                if block.stale(self._width) and not self._left_to_flush(block):
                    height = block.height
                    block.lines(ctx)
                    self._drawn(block)
                    self._catch_up_later(block)
                    if block.height != height and changed is None:
                        changed = i
                    elif block.height == height:  # lines outside this draw's crop too
                        self._repaint_block(i)
            if changed is None:
                return
            self._relayout(changed)

    def _left_to_flush(self, block: Block) -> bool:
        """The answer in flight with only new text, and its flush due: the flush draws it
        (at ``flush_pace``). A frame drawn for something else (a key typed while an answer
        streams) does not render the answer's tail first (issue 36: that render, a code
        block's highlighting most, was what the key waited for)."""
        answer = self._answer
        return (
            block is answer and self._flush_timer is not None and answer.only_new_text(self._width)
        )

    # -- streaming ----------------------------------------------------------------------

    def _schedule_flush(self) -> None:
        if self._flush_timer is not None or not self.is_attached:
            return
        delay = flush_delay(time.monotonic(), self._last_flush, last_key(self.app))
        self._flush_timer = self.set_timer(delay, self._flush_answer, name="transcript-flush")

    def _cancel_flush(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None

    def _flush_answer(self) -> None:
        self._flush_timer = None
        now = time.monotonic()
        if key_first(now, self._last_flush, last_key(self.app)) > 0:  # a key came: its frame first
            self._schedule_flush()
            return
        self._last_flush = now
        behind, self._behind = self._behind, []
        for block in behind:
            if block is not self._answer and block in self._blocks.blocks:
                block.stream.resume()
                self._rerender(block)
        answer = self._answer
        if answer is not None and (answer.stream.dirty or answer.stream.behind):
            answer.stream.resume()
            self._rerender(answer)

    def _catch_up_later(self, block: Block) -> None:
        """A render that stopped early (a flood) goes on in the next frames."""
        if isinstance(block, AnswerBlock) and block.stream.behind:
            if block not in self._behind:
                self._behind.append(block)
            self._schedule_flush()  # always: ending the answer cancels the pending frame

    def _end_answer_if_open(self) -> None:
        if self._answer is not None:
            self.end_answer()

    def _update_spinner(self) -> None:
        running = any(block.running for block in self._tools.values())
        if running and self._spin_timer is None and self.is_attached:
            self._spin_timer = self.set_interval(_SPIN_INTERVAL, self._spin, name="spinner")
        elif not running and self._spin_timer is not None:
            self._spin_timer.stop()
            self._spin_timer = None

    def _spin(self) -> None:
        for block in self._tools.values():
            if block.running:
                block.spinner_frame += 1
                block.invalidate()
                self._rerender(block)

    # -- Textual hooks ------------------------------------------------------------------

    def on_mount(self) -> None:
        self._update_spinner()

    def on_resize(self, event: Resize) -> None:
        width = self.scrollable_content_region.width
        if width == self._width:
            if self.follow:  # shorter (a pane opened under it): keep the end in view
                self.call_after_refresh(self._follow_end)
            return
        self._width = width
        unmeasured = [block for block in self._blocks.blocks if not block.measured]
        if unmeasured:  # never-measured blocks need a real height now
            ctx = self._render_context()
            for block in unmeasured:
                block.lines(ctx)
        self._relayout(0)
        self._measure_visible()
        if self.follow:
            self.call_after_refresh(self._follow_end)
        if self._answer is not None and self._answer.stream.dirty:
            self._schedule_flush()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles_changed = True
        self.refresh()

    def _check_styles(self) -> None:
        """Drop cached lines when the theme really changed (not on every focus change)."""
        self._styles_changed = False
        key = (self._code_theme(), *(self._component_style(name) for name in _STYLE_NAMES))
        if key != self._style_key:
            self._markdown = None
            if self._style_key is not None:
                for block in self._blocks.blocks:
                    block.invalidate()
            self._style_key = key

    # Scrolling keys jump at once: an animated Home/End takes about a second.
    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False, immediate=True)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False, immediate=True)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def on_click(self, event: Click) -> None:
        line = self.scroll_offset.y + event.y
        if 0 <= line < self.line_count:
            block = self._blocks.blocks[self._blocks.locate(line)[0]]
            if isinstance(block, ToolBlock):
                self.toggle_tool(block.call_id)
