"""The ``/mcp`` view: every MCP server, its state, transport, tools and recent errors.

One server is selected (up/down); ``r`` restarts it, ``d`` disables or enables it for the
session. The view redraws whenever a server's state changes (the main screen tells it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from gemtui.tui.screens.dialogs import DIALOG_CSS

if TYPE_CHECKING:
    from gemtui.mcp.manager import McpManager, ServerState

__all__ = ["McpScreen", "server_lines"]

_MARKS = {"ready": "●", "starting": "◌", "failed": "✗", "disabled": "○", "stopped": "○"}
_STYLES = {
    "ready": "$text-success",
    "starting": "$text-warning",
    "failed": "$text-error",
}


def server_lines(state: ServerState, *, selected: bool = False) -> Content:
    """One server: mark, name, transport, state; its tools with descriptions; errors."""
    status = str(state.status)
    head = Content.assemble(
        ("▶ " if selected else "  ", "bold"),
        (f"{_MARKS.get(status, '?')} ", _STYLES.get(status, "$text-muted")),
        (state.name, "bold reverse" if selected else "bold"),
        (f"  {state.transport}  ", "$text-muted"),
        (status, _STYLES.get(status, "$text-muted")),
        (f"  {len(state.tools)} tools" if state.tools else "", "$text-muted"),
    )
    lines: list[Content | str] = [head]
    if state.reason:
        lines.append(Content.styled(f"\n     {state.reason}", "$text-error"))
    for tool in state.tools:
        about = (tool.description or "").strip().splitlines()
        lines.append(Content.assemble(("\n     " + tool.name, "$text-accent")))
        if about:
            lines.append(Content.styled(f"  {about[0][:100]}", "$text-muted"))
    for error in [e for e in state.errors if e != state.reason][-3:]:  # the reason is above
        lines.append(Content.styled(f"\n     ! {error}", "$text-error"))
    return Content.assemble(*lines)


class McpScreen(ModalScreen[None]):
    """The servers of this session, with restart and disable/enable on keys."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="McpScreen")
        + """
    McpScreen > Vertical { height: 80%; }
    McpScreen VerticalScroll { height: 1fr; }
    McpScreen .mcp-server { height: auto; margin: 0 0 1 0; }
    """
    )

    BINDINGS = [
        Binding("escape,q", "close", "Close", priority=True),
        Binding("up,k", "move(-1)", "Previous", show=False),
        Binding("down,j", "move(1)", "Next", show=False),
        Binding("r", "restart", "Restart"),
        Binding("d", "toggle_server", "Disable / enable"),
    ]

    def __init__(self, manager: McpManager) -> None:
        super().__init__()
        self.manager = manager
        self.index = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("MCP servers", classes="dialog-title")
            box = self.manager.sandbox
            if box is not None:
                net = (
                    "with network"
                    if box.network
                    else "without network: a server that needs it wants"
                    " [tools.sandbox] network = true (or mcp = false)"
                )
                yield Static(f"⛨ Stdio servers run in the sandbox, {net}.", id="mcp-sandbox")
            yield VerticalScroll(id="mcp-servers")
            yield Static(
                "↑/↓ select · r restart · d disable / enable · Esc close", classes="dialog-keys"
            )

    def on_mount(self) -> None:
        self.refresh_states()

    def selected(self) -> ServerState | None:
        states = self.manager.states()
        return states[self.index] if states else None

    def refresh_states(self) -> None:
        """Redraw from the manager's current states (called on every state change)."""
        states = self.manager.states()
        self.index = max(0, min(self.index, len(states) - 1))
        box = self.query_one("#mcp-servers", VerticalScroll)
        box.remove_children()
        if not states:
            box.mount(Static("No MCP server has started yet.", classes="mcp-server"))
            return
        box.mount_all(
            Static(server_lines(s, selected=i == self.index), classes="mcp-server")
            for i, s in enumerate(states)
        )

    def action_move(self, step: int) -> None:
        self.index += step
        self.refresh_states()

    def action_restart(self) -> None:
        state = self.selected()
        if state is not None:
            self.run_worker(self.manager.restart(state.name), group="mcp")

    def action_toggle_server(self) -> None:
        state = self.selected()
        if state is None:
            return
        if str(state.status) == "disabled":
            self.run_worker(self.manager.restart(state.name), group="mcp")
        else:
            self.run_worker(self.manager.disable(state.name), group="mcp")

    def action_close(self) -> None:
        self.dismiss(None)
