"""The status line: provider, model, approval mode, workspace, git branch, MCP servers,
agents, turn state."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

__all__ = ["ACTIVITIES", "StatusLine", "git_branch", "short_path"]

ACTIVITIES = {
    # activity: (mark, words, style)
    "waiting": ("◌", "waiting for the model", "$text-muted"),
    "thinking": ("◌", "thinking", "$text-secondary"),
    "streaming": ("●", "streaming", "$text-primary"),
    "tool": ("⚙", "running", "$text-primary"),
    "approval": ("?", "waiting for your approval", "bold $text-warning"),
    "compressing": ("◌", "compressing the history", "$text-secondary"),
}
"""What a running turn can be doing, as the status line says it."""


def _elapsed(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds}s" if seconds < 60 else f"{seconds // 60}m{seconds % 60:02d}s"


def short_path(path: Path) -> str:
    """``~/…`` for a folder under the home directory (the status line's workspace)."""
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


def git_branch(workspace: Path) -> str | None:
    """The checked-out branch (or short commit) from ``.git/HEAD``, without spawning git."""
    for folder in (workspace, *workspace.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
                pointer = dot_git.read_text(encoding="utf-8").strip()
                if not pointer.startswith("gitdir:"):
                    return None
                git_dir = (folder / pointer.removeprefix("gitdir:").strip()).resolve()
            elif dot_git.is_dir():
                git_dir = dot_git
            else:
                continue
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if head.startswith("ref:"):
            return head.removeprefix("ref:").strip().removeprefix("refs/heads/")
        return head[:8] or None
    return None


class StatusLine(Widget):
    """One line at the bottom that always shows the approval mode."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        width: 1fr;
    }
    """

    provider: reactive[str] = reactive("")
    """Provider name (``gemini``, ``openai``, ``replay``…)."""
    model: reactive[str] = reactive("")
    """The model the next turn uses."""
    approval_mode: reactive[str] = reactive("default")
    """default, auto_edit, plan or yolo."""
    workspace: reactive[str] = reactive("")
    """The workspace folder, shortened with ``~``."""
    branch: reactive[str | None] = reactive(None)
    """The git branch, or None outside a repository."""
    busy: reactive[str] = reactive("")
    """What the engine is doing (``thinking``, ``3 queued``…), empty when idle."""
    mcp: reactive[str] = reactive("")
    """MCP servers at a glance (``MCP 2/3 ✗``), empty without servers."""
    mcp_trouble: reactive[bool] = reactive(False)
    """A server failed: the summary is shown in the error colour."""
    limits: reactive[str] = reactive("")
    """The provider's rate limits left (``req 12/50 · tok 8k/40k · resets 20s``), if said."""
    agents: reactive[str] = reactive("")
    """Agents at a glance (``agents 2 working · 1 waits for you``), empty with one in front."""
    sandbox: reactive[str] = reactive("")
    """``sandbox`` or ``sandbox+net`` when shell commands run under bubblewrap."""
    activity: reactive[str] = reactive("")
    """What the running turn does now (a key of ``ACTIVITIES``), empty when idle."""
    activity_detail: reactive[str] = reactive("")
    """The tool being run, for ``tool``."""
    vim: reactive[str] = reactive("")
    """The prompt's vim mode (``normal``, ``insert``), empty without ``/vim``."""

    clock: Callable[[], float] = staticmethod(time.monotonic)
    """The time source (tests pin it)."""

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.turn_started: float | None = None
        """When the person's prompt started running (elapsed time counts from here)."""
        self.first_output: float | None = None
        """When the current model call's first answer text arrived (for tokens/s)."""
        self.output_chars = 0
        self._calls: dict[str, tuple[str, str]] = {}
        self._ticker: Timer | None = None

    # -- what the turn does ----------------------------------------------------------
    def model_call_started(self) -> None:
        """A model call began (the first of a prompt starts the clock)."""
        if self.turn_started is None:
            self.turn_started = self.clock()
        self.first_output, self.output_chars = None, 0
        self._settle("waiting")

    def streamed(self, chars: int, thought: bool = False) -> None:
        """Answer (or thought) text arrived: streaming, at a measurable rate."""
        if not thought:
            if self.first_output is None:
                self.first_output = self.clock()
            self.output_chars += chars
        if self.activity not in ("tool", "approval"):
            self._settle("thinking" if thought and not self.output_chars else "streaming")
        else:
            self.refresh()

    def call_changed(self, call_id: str, name: str, state: str) -> None:
        """A tool call's new state: waiting for approval wins over running, which wins
        over waiting for the model."""
        if state in ("awaiting_approval", "executing", "validating", "scheduled"):
            self._calls[call_id] = (name, state)
        else:
            self._calls.pop(call_id, None)
        states = [s for _, s in self._calls.values()]
        if "awaiting_approval" in states:
            self._settle("approval")
        elif "executing" in states:
            running = [n for n, s in self._calls.values() if s == "executing"]
            self.activity_detail = running[0] if len(running) == 1 else f"{len(running)} tools"
            self._settle("tool")
        elif self.turn_started is not None:
            self._settle("waiting")
        elif self.activity in ("approval", "tool"):  # a ``!`` line: no model call follows
            self._settle("")

    def compression_started(self) -> None:
        """/compress runs: a model call the person waits for, with its clock."""
        self.turn_started = self.clock()
        self._settle("compressing")

    def turn_ended(self) -> None:
        self.turn_started = self.first_output = None
        self.output_chars = 0
        self._calls.clear()
        self._settle("")

    def tokens_per_second(self) -> float | None:
        """Output tokens per second of the current model call (about four characters a
        token), once it has streamed for half a second."""
        if self.first_output is None:
            return None
        # here, not at the top: ``gemtui.wire`` brings pydantic, which the first frame avoids
        from gemtui.wire.token_estimate import CHARS_PER_TOKEN

        seconds = self.clock() - self.first_output
        return self.output_chars / CHARS_PER_TOKEN / seconds if seconds >= 0.5 else None

    def _settle(self, activity: str) -> None:
        self.activity = activity
        if activity and self._ticker is None and self.is_attached:
            self._ticker = self.set_interval(0.5, self.refresh, name="status-clock")
        elif not activity and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self.refresh()

    def _activity(self) -> list[Content | str | tuple[str, str]]:
        mark, words, style = ACTIVITIES[self.activity]
        if self.activity == "tool" and self.activity_detail:
            words = f"{words} {self.activity_detail}"
        text = f"{mark} {words}"
        if self.turn_started is not None:
            text += f" · {_elapsed(self.clock() - self.turn_started)}"
        rate = self.tokens_per_second() if self.activity == "streaming" else None
        if rate is not None:
            text += f" · {rate:.0f} tok/s"
        return ["  ", (text, style)]

    def render(self) -> Content:
        """Mode, model, place and state; when the line is too short, the workspace goes
        first, then the branch, then the limits left, then the provider's name — never
        what the turn does."""
        mode_style = {
            "yolo": "bold $text-error",
            "auto_edit": "bold $text-warning",
            "plan": "bold $text-accent",
        }.get(self.approval_mode, "bold $text-primary")
        state: list[Content | str | tuple[str, str]] = []
        if self.activity in ACTIVITIES:
            state += self._activity()
        if self.busy:
            state += ["  ", (self.busy, "italic $text-warning")]
        drop = {"workspace": False, "branch": False, "limits": False, "provider": False}
        line = Content("")
        for dropping in (None, "workspace", "branch", "limits", "provider"):
            if dropping:
                drop[dropping] = True
            pieces: list[Content | str | tuple[str, str]] = [
                (f" {self.approval_mode} ", f"reverse {mode_style}"),
                " ",
            ]
            if self.vim:
                pieces += [(self.vim.upper(), "bold $text-accent"), " "]
            if not drop["provider"]:
                pieces += [(self.provider, "$text-secondary"), ":"]
            pieces.append((self.model, "bold"))
            if self.sandbox:
                pieces += ["  ", (f"⛨ {self.sandbox}", "bold $text-success")]
            if not drop["workspace"]:
                pieces += ["  ", (self.workspace, "$text-muted")]
            if self.branch and not drop["branch"]:
                pieces += ["  ", (f"⎇ {self.branch}", "$text-success")]
            if self.mcp:
                pieces += ["  ", (self.mcp, "$text-error" if self.mcp_trouble else "$text-muted")]
            if self.limits and not drop["limits"]:
                pieces += ["  ", (self.limits, "$text-muted")]
            if self.agents:
                waits = "for you" in self.agents
                pieces += ["  ", (self.agents, "bold $text-warning" if waits else "$text-muted")]
            line = Content.assemble(*pieces, *state)
            if line.cell_length <= self.size.width or not self.size.width:
                break
        return line
