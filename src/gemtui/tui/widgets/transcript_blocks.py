"""The blocks a :class:`~gemtui.tui.widgets.transcript.Transcript` is made of.

Each block renders itself into a list of :class:`~textual.strip.Strip` lines for one
width and keeps them until the width changes or it is invalidated, so the transcript can
draw any visible line without rendering anything else. Colours come from the
transcript's component classes (theme variables), handed in through :class:`RenderContext`.
Notices and tool cards (errors, command output) mask known secrets (``gemtui.redact``).
"""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from rich.theme import Theme
from textual.strip import Strip

from gemtui.bus.values import Refusal, ToolCallState
from gemtui.redact import redact
from gemtui.tui.widgets.answer_render import AnswerRender
from gemtui.tui.widgets.tool_summary import (
    EXPAND_KEY,
    OPEN_OUTPUT_KEY,
    elapsed,
    split_arguments,
)

if TYPE_CHECKING:
    from gemtui.bus.events import ToolCallSnapshot

__all__ = [
    "AnswerBlock",
    "Block",
    "BlockList",
    "NoticeBlock",
    "RenderContext",
    "SubagentProgress",
    "ThoughtMarkerBlock",
    "ToolBlock",
    "UserBlock",
]

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
clock = time.monotonic
"""The time source for running calls' elapsed time (snapshot tests pin it)."""
COLLAPSED_OUTPUT_LINES = 3
DIAGNOSTICS = ("Diagnostics (", "Diagnostics unavailable")
"""How an edit's language-server note begins (``tools.lsp``), after the diff."""
_INDENT = 2


class RenderContext(Struct, frozen=True):
    """What a block needs to render: the console, the width, and the theme's styles."""

    console: Console
    width: int
    style: Callable[[str], Style]
    """Component class name (without the ``transcript--`` prefix) to a Rich style."""
    code_theme: str = "monokai"
    markdown: Theme | None = None
    """Rich ``markdown.*`` styles from the theme (see ``markdown_look``)."""


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

    def release(self) -> None:
        """Drop the rendered lines to save memory; the height stays for the layout and the
        next draw renders them again."""
        self._strips = None

    @property
    def drawn(self) -> list[Strip]:
        """The lines as last rendered, stale or not (empty if never)."""
        return self._strips or []

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
    """A message the person sent, behind a bar in the primary colour (a cancelled one
    says so after its text, muted)."""

    role = "user"
    CANCELLED = "  ⊘ cancelled"

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text
        self.cancelled = False
        """The prompt was cancelled (the model was told so and will not act on it)."""

    @property
    def text(self) -> str:
        return self._text

    def render(self, ctx: RenderContext) -> list[Strip]:
        text = Text(self._text, style=ctx.style("user"))
        if self.cancelled:
            text.append(self.CANCELLED, style=ctx.style("muted"))
        body = _wrapped(ctx, text, ctx.width - _INDENT)
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

    def only_new_text(self, width: int) -> bool:
        """Stale only because text arrived since it was drawn at this width."""
        return self.stream.dirty and not super().stale(width)

    def invalidate(self) -> None:
        super().invalidate()
        self.stream.invalidate()

    def release(self) -> None:
        if self.stream.finished:  # a streaming answer keeps its work
            super().release()
            self.stream.release()

    def render(self, ctx: RenderContext) -> list[Strip]:
        self.stream.code_theme = ctx.code_theme
        if ctx.markdown is None:
            return list(self.stream.render(ctx.console, ctx.width - _INDENT, _INDENT))
        with ctx.console.use_theme(ctx.markdown):
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


def _failed_exit(snap: ToolCallSnapshot) -> str | None:
    """``exit N`` (or ``signal N``) for a command that ran and failed: the call itself
    succeeded, but a green tick would say the command did."""
    code = snap.exit_code
    if snap.state is not ToolCallState.SUCCESS or code is None or code == 0:
        return None
    return f"exit {code}" if code > 0 else f"signal {-code}"


def _refused_label(snap: ToolCallSnapshot) -> str | None:
    """Why a call that ended in error never ran, in words (not "failed": nothing failed)."""
    refusal = snap.refusal
    if refusal is Refusal.REJECTED:
        return "rejected"
    if refusal is Refusal.DENIED:
        # Plan mode's refusal is the one a person meets most; the policy names it.
        return "not allowed in plan mode" if "plan mode" in (snap.error or "") else "not allowed"
    if refusal is Refusal.NEEDS_APPROVAL:
        return "needs approval"
    if refusal is Refusal.INVALID:
        return "invalid call"
    return None


_URL = re.compile(r"https?://[^\s<>()\"']+")


def _linked(line: str, style: Style) -> Text:
    """``line`` with each http(s) URL a hyperlink (search sources, fetched pages)."""
    text = Text(line)
    text.stylize(style)  # a span: ``Text.render`` drops a base style without spans
    for match in _URL.finditer(line):
        url = match.group(0).rstrip(".,;:!?]")
        text.stylize(Style(link=url), match.start(), match.start() + len(url))
    return text


class SubagentProgress(Struct):
    """What a delegation card shows of its agent while it works."""

    turns: int = 0
    tokens: int = 0
    cost: float | None = None
    calls: int = 0
    """The agent's calls that have ended."""
    current: str | None = None
    """The tool the agent is running (or waiting approval for) now."""
    said: str = ""
    """The agent's own text so far (its tail), shown on the card, never as an answer."""

    SAID_LIMIT = 16 * 1024

    def add_text(self, text: str) -> None:
        self.said = (self.said + text)[-self.SAID_LIMIT :]

    def line(self) -> str:
        parts = [f"{self.turns} turn{'s' if self.turns != 1 else ''}"]
        if self.calls:
            parts.append(f"{self.calls} call{'s' if self.calls != 1 else ''}")
        parts.append(f"{self.tokens:,} tokens")
        if self.cost is not None:
            parts.append(f"${self.cost:.4f}")
        if self.current:
            parts.append(f"now {self.current}")
        return " · ".join(parts)


class ToolBlock(Block):
    """A tool call card: one line naming the tool once, its key argument in full, the
    rest folded, the state with elapsed time; output folded to a few lines."""

    LIVE_LIMIT = 64 * 1024
    """Characters of live output kept while a command runs (its tail is what matters)."""

    def __init__(self, snapshot: ToolCallSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.expanded = False
        self.spinner_frame = 0
        self.live = ""
        """Output streamed while the call runs, until its result replaces it."""
        self.started: float | None = None
        """When the call began executing (monotonic), for the running time."""
        self.agent: str | None = None
        """The subagent that made this call (None: the conversation's own)."""
        self.progress = SubagentProgress()
        """Its agent's work so far, when this call started a subagent."""
        self._note_start()

    @property
    def call_id(self) -> str:
        return self.snapshot.call_id

    @property
    def running(self) -> bool:
        return self.snapshot.state is ToolCallState.EXECUTING

    @property
    def foldable(self) -> bool:
        """Is there anything a toggle would show or hide?"""
        return (
            len(self._output_lines()) > COLLAPSED_OUTPUT_LINES
            or bool(split_arguments(self.snapshot.args)[1])
            or bool(self.progress.said.strip())
        )

    def update(self, snapshot: ToolCallSnapshot) -> None:
        self.snapshot = snapshot
        self._note_start()
        self.invalidate()

    def _note_start(self) -> None:
        if self.running and self.started is None:
            self.started = clock()

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

    def _state_label(self) -> str:
        snap = self.snapshot
        label = _failed_exit(snap) or _STATE_LOOK[snap.state][1]
        if snap.state is ToolCallState.ERROR:
            label = _refused_label(snap) or label  # refused, not failed: it never ran
        if snap.state is ToolCallState.EXECUTING and self.started is not None:
            return f"{label} {elapsed(clock() - self.started)}"
        if snap.duration_ms is not None and snap.state in (
            ToolCallState.SUCCESS,
            ToolCallState.ERROR,
            ToolCallState.CANCELLED,
        ):
            return f"{label} in {elapsed(snap.duration_ms / 1000)}"
        return label

    def render(self, ctx: RenderContext) -> list[Strip]:
        snap = self.snapshot
        icon, _, style_name = _STATE_LOOK[snap.state]
        if _failed_exit(snap) is not None:
            icon, style_name = _STATE_LOOK[ToolCallState.ERROR][0::2]
        if snap.state is ToolCallState.EXECUTING:
            icon = SPINNER[self.spinner_frame % len(SPINNER)]
        state_style = ctx.style(style_name)
        muted = ctx.style("muted")
        key, rest = split_arguments(snap.args)
        header = Text()
        if self.agent:
            header.append(f"↳ {self.agent} › ", style=muted)
        header.append(f"{icon} ", style=state_style)
        header.append(snap.name, style=ctx.style("tool-name"))
        tail = Text()
        if rest and not self.expanded:
            tail.append(f"  +{len(rest)} arg{'s' if len(rest) != 1 else ''}", style=muted)
        tail.append(f"  · {self._state_label()}", style=state_style)
        shown_key = redact(key) if key else ""
        if header.cell_len + len(shown_key) + 2 + tail.cell_len <= ctx.width:
            if shown_key:
                header.append(f"  {shown_key}")
            strips = [_text_line(ctx, header + tail)]
        else:  # a long argument gets its own lines, in full, under name and state
            strips = [_text_line(ctx, header + tail)]
            wrapped = _wrapped(ctx, Text(shown_key), ctx.width - 2 * _INDENT)
            strips.extend(_prefixed(Segment(" " * 2 * _INDENT), wrapped))
        bar = Segment("  │ ", muted)
        width = ctx.width - bar.cell_length
        if self.progress.turns or self.progress.current:  # a delegation: its agent's work
            note = Text(f"  ⋯ {self.progress.line()}", style=muted)
            strips.extend(_wrapped(ctx, note, ctx.width))
        said = [x for x in redact(self.progress.said).expandtabs(4).split("\n") if x.strip()]
        if said and (self.expanded or self.running):  # its words: the last line while it works
            rail = Segment("  ┊ ", muted)
            for line in said if self.expanded else said[-1:]:
                strips.extend(_prefixed(rail, [_text_line(ctx, Text(line, style=muted), width)]))
        if snap.repair:  # the arguments were repaired before it ran: say how
            note = Text(f"  ↺ {snap.repair}", style=muted)
            strips.extend(_wrapped(ctx, note, ctx.width))
        if self.expanded:
            for name, value in rest:
                argument = Text(f"{name}: ", style=muted)
                argument.append(redact(value).replace("\n", " ⏎ "))
                strips.extend(_prefixed(bar, [_text_line(ctx, argument, width)]))
        output = self._output_lines()
        changes = None if self.expanded else _changed_lines(output)
        folded = output if changes is None else changes
        shown = output if self.expanded else folded[:COLLAPSED_OUTPUT_LINES]
        body_style = ctx.style("error") if snap.state is ToolCallState.ERROR else Style()
        sign_style = {"+": ctx.style("success"), "-": ctx.style("error")}
        for line in shown:
            style = sign_style.get(line[:1], body_style) if changes else body_style
            strips.extend(_prefixed(bar, [_text_line(ctx, _linked(line, style), width)]))
        hidden = len(folded) - len(shown)
        if hidden > 0:
            what = "changed line" if changes else "line"
            more = Text(
                f"… {hidden} more {what}{'s' if hidden != 1 else ''} · {EXPAND_KEY} to expand",
                style=muted,
            )
            strips.extend(_prefixed(bar, [_text_line(ctx, more, width)]))
        if snap.output_file and not self.running:
            whole = Text(f"⤓ whole output: {snap.output_file} · {OPEN_OUTPUT_KEY} to open")
            whole.stylize(muted)
            strips.extend(_prefixed(bar, _wrapped(ctx, whole, width)))
        return strips


def _changed_lines(output: list[str]) -> list[str] | None:
    """A unified diff's added and removed lines, without its headers, hunk marks and
    context (what a folded edit card shows); None when ``output`` is not a diff. One line
    before the diff (how replace matched: "matched with flexible whitespace") is kept, and
    the language server's diagnostics after it come first, as what most needs seeing."""
    checked = next((i for i, line in enumerate(output) if line.startswith(DIAGNOSTICS)), None)
    diagnostics = [] if checked is None else output[checked:]
    output = output if checked is None else output[:checked]
    note = output[:1] if output[:1] and not output[0].startswith("--- ") else []
    diff = output[len(note) :]
    if len(diff) < 3 or not diff[0].startswith("--- ") or not diff[1].startswith("+++ "):
        return None
    return [*note, *diagnostics, *(line for line in diff[2:] if line[:1] in "+-")]


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

    def cancel_last_prompt(self) -> UserBlock | None:
        """Mark the latest prompt cancelled; it is returned to be drawn again (None when
        there is none, or it already was)."""
        for block in reversed(self.blocks):
            if isinstance(block, UserBlock):
                if block.cancelled:
                    return None
                block.cancelled = True
                block.invalidate()
                return block
        return None

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

    def start(self, index: int) -> int:
        """The first line of block ``index``."""
        return self._offsets[index]

    def locate(self, line: int) -> tuple[int, int]:
        """(block index, line within the block) for a transcript line."""
        index = max(0, bisect_right(self._offsets, line) - 1)
        return index, line - self._offsets[index]

    def visible(self, top: int, height: int) -> range:
        """Indexes of the blocks that overlap lines ``top`` .. ``top + height``."""
        if not self.blocks:
            return range(0)
        return range(self.locate(top)[0], bisect_right(self._offsets, top + height))
