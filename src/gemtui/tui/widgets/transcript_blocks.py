"""The blocks a :class:`~gemtui.tui.widgets.transcript.Transcript` is made of.

Each block renders itself into a list of :class:`~textual.strip.Strip` lines for one
width and keeps them until the width changes or it is invalidated, so the transcript can
draw any visible line without rendering anything else. Colours come from the
transcript's component classes (theme variables), handed in through :class:`RenderContext`.
Notices and tool cards (errors, command output) mask known secrets (``gemtui.redact``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from gemtui.bus.events import ToolCallSnapshot, ToolCallState
from gemtui.redact import redact
from gemtui.tui.widgets.answer_render import AnswerRender

__all__ = [
    "AnswerBlock",
    "Block",
    "BlockList",
    "NoticeBlock",
    "RenderContext",
    "ThoughtMarkerBlock",
    "ToolBlock",
    "UserBlock",
]

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
COLLAPSED_OUTPUT_LINES = 3
_INDENT = 2


@dataclass(frozen=True, slots=True)
class RenderContext:
    """What a block needs to render: the console, the width, and the theme's styles."""

    console: Console
    width: int
    style: Callable[[str], Style]
    """Component class name (without the ``transcript--`` prefix) to a Rich style."""
    code_theme: str = "monokai"


def _text_line(ctx: RenderContext, text: Text, width: int | None = None) -> Strip:
    """One line of ``text``, cut with an ellipsis or padded to ``width`` cells."""
    width = ctx.width if width is None else width
    text = text.copy()
    text.no_wrap = True
    text.truncate(width, overflow="ellipsis", pad=True)
    return Strip(list(text.render(ctx.console, end="")), width)


def _wrapped(ctx: RenderContext, text: Text, width: int) -> list[Strip]:
    options = ctx.console.options.update(width=max(1, width), height=None, highlight=False)
    return [Strip(line, width) for line in ctx.console.render_lines(text, options, pad=True)]


def _prefixed(prefix: Segment, strips: list[Strip]) -> list[Strip]:
    width = prefix.cell_length
    return [Strip([prefix, *strip], strip.cell_length + width) for strip in strips]


class Block:
    """One item of the transcript with its cached lines."""

    role: str | None = None
    """The message role for :meth:`Transcript.messages`, or None for decorations."""
    gap: int = 1
    """Blank lines drawn after the block."""

    def __init__(self) -> None:
        self._strips: list[Strip] | None = None
        self._width = -1
        self.height = 0
        """Lines of the last rendering (an estimate while stale after a resize)."""

    @property
    def text(self) -> str:
        return ""

    @property
    def measured(self) -> bool:
        """Has this block ever been rendered (is ``height`` meaningful)?"""
        return self._width >= 0

    def stale(self, width: int) -> bool:
        return self._strips is None or self._width != width

    def invalidate(self) -> None:
        self._strips = None

    def lines(self, ctx: RenderContext) -> list[Strip]:
        """The block's lines at ``ctx.width``, rendering only when stale."""
        if self._strips is None or self.stale(ctx.width):
            strips = self.render(ctx) if ctx.width > 0 else []
            strips.extend(Strip.blank(ctx.width) for _ in range(self.gap))
            self._strips, self._width, self.height = strips, ctx.width, len(strips)
        return self._strips

    def render(self, ctx: RenderContext) -> list[Strip]:
        raise NotImplementedError


class UserBlock(Block):
    """A message the person sent, behind a bar in the primary colour."""

    role = "user"

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text

    @property
    def text(self) -> str:
        return self._text

    def render(self, ctx: RenderContext) -> list[Strip]:
        body = _wrapped(ctx, Text(self._text, style=ctx.style("user")), ctx.width - _INDENT)
        return _prefixed(Segment("▌ ", ctx.style("user-bar")), body)


class AnswerBlock(Block):
    """The model's answer, streamed as Markdown through a :class:`AnswerRender`."""

    role = "model"

    def __init__(self, code_theme: str = "monokai") -> None:
        super().__init__()
        self.stream = AnswerRender(code_theme)

    @property
    def text(self) -> str:
        return self.stream.text

    def stale(self, width: int) -> bool:
        return super().stale(width) or self.stream.dirty

    def invalidate(self) -> None:
        super().invalidate()
        self.stream.invalidate()

    def render(self, ctx: RenderContext) -> list[Strip]:
        self.stream.code_theme = ctx.code_theme
        return list(self.stream.render(ctx.console, ctx.width - _INDENT, _INDENT))


class ThoughtMarkerBlock(Block):
    """A dim one-liner saying the model thought here (the thoughts live elsewhere)."""

    def __init__(self, subject: str | None) -> None:
        super().__init__()
        self.subject = subject

    def render(self, ctx: RenderContext) -> list[Strip]:
        label = f"✻ Thinking: {self.subject}" if self.subject else "✻ Thinking…"
        return [_text_line(ctx, Text(label, style=ctx.style("muted") + Style(italic=True)))]


class NoticeBlock(Block):
    """An inline error, warning or note, saying what to do next."""

    ICONS = {"error": "✗", "warning": "⚠", "information": "ℹ"}

    def __init__(self, text: str, severity: str = "information") -> None:
        super().__init__()
        self._text = redact(text)
        self.severity = severity if severity in self.ICONS else "information"

    @property
    def text(self) -> str:
        return self._text

    def render(self, ctx: RenderContext) -> list[Strip]:
        style = ctx.style({"information": "muted"}.get(self.severity, self.severity))
        body = _wrapped(ctx, Text(self._text, style=style), ctx.width - _INDENT)
        icon = Segment(f"{self.ICONS[self.severity]} ", style)
        indent = Segment(" " * _INDENT)
        return [Strip([icon if i == 0 else indent, *s]) for i, s in enumerate(body)]


_STATE_LOOK: dict[ToolCallState, tuple[str, str, str]] = {
    # state: (icon, label, style name)
    ToolCallState.VALIDATING: ("○", "validating", "muted"),
    ToolCallState.SCHEDULED: ("○", "queued", "muted"),
    ToolCallState.AWAITING_APPROVAL: ("?", "awaiting approval", "warning"),
    ToolCallState.EXECUTING: ("", "running", "running"),
    ToolCallState.SUCCESS: ("✓", "done", "success"),
    ToolCallState.ERROR: ("✗", "failed", "error"),
    ToolCallState.CANCELLED: ("⊘", "cancelled", "muted"),
}


class ToolBlock(Block):
    """A tool call card: name, description, state, and its output (first lines)."""

    LIVE_LIMIT = 64 * 1024
    """Characters of live output kept while a command runs (its tail is what matters)."""

    def __init__(self, snapshot: ToolCallSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.expanded = False
        self.spinner_frame = 0
        self.live = ""
        """Output streamed while the call runs, until its result replaces it."""

    @property
    def call_id(self) -> str:
        return self.snapshot.call_id

    @property
    def running(self) -> bool:
        return self.snapshot.state is ToolCallState.EXECUTING

    def update(self, snapshot: ToolCallSnapshot) -> None:
        self.snapshot = snapshot
        self.invalidate()

    def append_live(self, text: str) -> None:
        self.live = (self.live + text)[-self.LIVE_LIMIT :]
        self.invalidate()

    def _output_lines(self) -> list[str]:
        snap = self.snapshot
        text = snap.error if snap.state is ToolCallState.ERROR and snap.error else snap.output
        if not text and self.running and self.live:
            lines = redact(self.live).expandtabs(4).rstrip("\n").split("\n")
            return lines if self.expanded else lines[-COLLAPSED_OUTPUT_LINES:]
        if not text:
            return []
        return redact(text).expandtabs(4).rstrip("\n").split("\n")

    def render(self, ctx: RenderContext) -> list[Strip]:
        snap = self.snapshot
        icon, label, style_name = _STATE_LOOK[snap.state]
        if snap.state is ToolCallState.EXECUTING:
            icon = SPINNER[self.spinner_frame % len(SPINNER)]
        if snap.state is ToolCallState.SUCCESS and snap.duration_ms is not None:
            label = f"done in {snap.duration_ms / 1000:.1f}s"
        state_style = ctx.style(style_name)
        muted = ctx.style("muted")
        header = Text(f"{icon} ", style=state_style)
        header.append(snap.name, style=ctx.style("tool-name"))
        if snap.description:
            header.append(f"  {redact(snap.description)}", style=muted)
        header.append(f"  · {label}", style=state_style)
        strips = [_text_line(ctx, header)]
        if snap.repair:
            note = Text(f"  ↺ {snap.repair}", style=muted)
            strips.extend(_wrapped(ctx, note, ctx.width))
        output = self._output_lines()
        shown = output if self.expanded else output[:COLLAPSED_OUTPUT_LINES]
        bar = Segment("  │ ", muted)
        body_style = ctx.style("error") if snap.state is ToolCallState.ERROR else Style()
        width = ctx.width - bar.cell_length
        for line in shown:
            strips.extend(_prefixed(bar, [_text_line(ctx, Text(line, style=body_style), width)]))
        hidden = len(output) - len(shown)
        if hidden > 0:
            more = Text(f"… {hidden} more line{'s' if hidden != 1 else ''}", style=muted)
            strips.extend(_prefixed(bar, [_text_line(ctx, more, width)]))
        return strips


class BlockList:
    """The blocks in order with the first line of each, so a line finds its block fast."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self._offsets: list[int] = []

    def __len__(self) -> int:
        return len(self.blocks)

    @property
    def line_count(self) -> int:
        return self._offsets[-1] + self.blocks[-1].height if self.blocks else 0

    def append(self, block: Block) -> int:
        self._offsets.append(self.line_count)
        self.blocks.append(block)
        return len(self.blocks) - 1

    def index(self, block: Block) -> int:
        """Where ``block`` is, searching from the end (where changes usually happen)."""
        for index in range(len(self.blocks) - 1, -1, -1):
            if self.blocks[index] is block:
                return index
        raise ValueError("block not in the transcript")

    def remove(self, block: Block) -> int:
        index = self.index(block)
        del self.blocks[index], self._offsets[index]
        return index

    def clear(self) -> None:
        self.blocks.clear()
        self._offsets.clear()

    def relayout(self, index: int) -> None:
        """Recompute first lines from block ``index`` on, after heights changed."""
        blocks, offsets = self.blocks, self._offsets
        for i in range(max(index, 1), len(blocks)):
            offsets[i] = offsets[i - 1] + blocks[i - 1].height

    def locate(self, line: int) -> tuple[int, int]:
        """(block index, line within the block) for a transcript line."""
        index = max(0, bisect_right(self._offsets, line) - 1)
        return index, line - self._offsets[index]

    def visible(self, top: int, height: int) -> range:
        """Indexes of the blocks that overlap lines ``top`` .. ``top + height``."""
        if not self.blocks:
            return range(0)
        return range(self.locate(top)[0], bisect_right(self._offsets, top + height))
