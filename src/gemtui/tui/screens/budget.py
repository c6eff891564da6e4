"""The question asked when a spending cap stops the next model call.

At a cap: raise it for this session (+$1, +$5, or an amount typed here) and the call the
cap refused starts now, the prompt going on from where it stopped; or stop, and the
prompt ends as it would headless (nothing typed is lost: the prompt stays in the
history, the prompt box as it was). For a model with no known price under a cap: go on
without a price for this session (the cap then cannot be kept for it) or stop, with how
to give it a price. The question appears by itself, maybe while the person types, so
it answers only on purpose (``gemtui.tui.intent``): F8 or a click first.
"""

from __future__ import annotations

import math

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from gemtui.bus.values import ApprovalDecision, Decision
from gemtui.tui.intent import ConsentDialog
from gemtui.tui.screens.dialogs import DIALOG_CSS

__all__ = ["STOP", "BudgetScreen", "parse_raise", "raise_problem"]

STOP = Decision(ApprovalDecision.REJECT)
"""The answer that ends the prompt (Esc, s)."""


def parse_raise(text: str, spent: float, cap: float | None) -> float | str:
    """The raise in USD typed as ``text`` (``2``, ``$2.50``, ``+5``), or why it cannot be."""
    cleaned = text.strip().removeprefix("+").removeprefix("$").strip().replace(",", "")
    try:
        usd = float(cleaned)
    except ValueError:
        return f"{text.strip() or 'Nothing'!s} is not an amount: type dollars, e.g. 2 or 2.50."
    return raise_problem(usd, spent, cap) or usd


def raise_problem(usd: float, spent: float, cap: float | None) -> str | None:
    """Why ``usd`` cannot be the raise: not a positive number, or too small to bring the
    cap above what was spent (the same question would come straight back)."""
    if not math.isfinite(usd) or usd <= 0:
        return "Type an amount of more than $0."
    if cap is not None and cap + usd <= spent:
        return (
            f"That leaves the cap (${cap + usd:.4f}) at or under what was spent"
            f" (${spent:.4f}): raise by more than ${spent - cap:.4f}."
        )
    return None


class BudgetScreen(ConsentDialog[Decision]):
    """Raise the cap or stop (``unpriced``: go on without a price or stop); dismisses
    with the decision the engine waits for."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="BudgetScreen")
        + """
    BudgetScreen > Vertical { height: auto; max-height: 90%; }
    BudgetScreen #budget-why { height: auto; color: $text-warning; margin: 1 0; }
    BudgetScreen .note { height: auto; color: $text-muted; }
    BudgetScreen #budget-amount { display: none; }
    BudgetScreen.-typing #budget-amount { display: block; }
    BudgetScreen #budget-problem { height: auto; color: $text-error; }
    """
    )

    BINDINGS = [
        Binding("1", "raise_by(1.0)", "+$1", show=False),
        Binding("5", "raise_by(5.0)", "+$5", show=False),
        Binding("r", "type_amount", "Raise by…", show=False),
        Binding("g", "run_unpriced", "Go on without a price", show=False),
        Binding("s", "stop", "Stop", show=False),
        Binding("escape", "decline", "Stop", priority=True),
    ]
    ANSWERS = frozenset({"raise_by", "type_amount", "run_unpriced", "stop"})
    ESC_SAYS = "stop (the prompt ends; nothing you typed is lost)"

    def __init__(
        self, kind: str, message: str, model: str, spent: float, cap: float | None
    ) -> None:
        super().__init__(on_purpose=False)
        self.kind = kind
        """``session``, ``daily`` or ``unpriced``."""
        self.message = message
        """The engine's words: what was spent and the cap, or how to give a price."""
        self.model = model
        self.spent = spent
        self.cap = cap

    @property
    def unpriced(self) -> bool:
        return self.kind == "unpriced"

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.unpriced:
                title = f"No price is known for {self.model}: go on without one?"
                note = (
                    "Going on runs it for this session with its spend uncounted: the cap"
                    f"{self._cap_text()} cannot be kept for this model. Stop to give it a"
                    " price first (then send the prompt again)."
                )
            else:
                cap = "daily cap" if self.kind == "daily" else "cap for this session"
                title = f"Budget reached: raise the {cap}, or stop?"
                note = (
                    "A raise lets the call the cap refused start now: the prompt goes on"
                    " from where it stopped. It lasts for this session; the settings keep"
                    " their cap."
                )
            yield Static(Content(title), classes="dialog-title", id="budget-title")
            yield Static(Content(self.message), id="budget-why")
            yield Static(Content(note), classes="note")
            if not self.unpriced:
                yield Input(
                    placeholder="Raise by how many USD (e.g. 2.50), then Enter",
                    id="budget-amount",
                    disabled=True,
                )
            yield Static(id="budget-problem")
            yield self.keys_hint()

    def _cap_text(self) -> str:
        return f" (${self.cap:.2f})" if self.cap is not None else ""

    def keys_line(self) -> str:
        if self.unpriced:
            return "g go on without a price (this session) · s / Esc stop"
        return "1 raise by $1 · 5 raise by $5 · r raise by an amount you type · s / Esc stop"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Each question's own keys: a raise at a cap, going on unpriced for a price."""
        if action in ("raise_by", "type_amount") and self.unpriced:
            return False
        if action == "run_unpriced" and not self.unpriced:
            return False
        return super().check_action(action, parameters)

    def action_answer_here(self) -> None:
        super().action_answer_here()
        for amount in self.query("#budget-amount").results(Input):
            amount.disabled = False  # typing in it is an answer now, never before

    def action_raise_by(self, usd: float) -> None:
        self._raise(usd)

    def action_type_amount(self) -> None:
        self.add_class("-typing")
        self.query_one("#budget-amount", Input).focus()
        keys = "Enter raise by the amount typed · Esc stop"  # digits type here now
        self.query_one("#consent-keys", Static).update(keys)

    @on(Input.Submitted, "#budget-amount")
    def _typed(self, event: Input.Submitted) -> None:
        parsed = parse_raise(event.value, self.spent, self.cap)
        if isinstance(parsed, str):
            self._say(parsed)  # what was typed stays, to be corrected
            return
        self._raise(parsed)

    def _raise(self, usd: float) -> None:
        problem = raise_problem(usd, self.spent, self.cap)
        if problem is not None:
            self._say(problem)
            return
        self.dismiss(Decision(ApprovalDecision.ALLOW_ONCE, raise_usd=usd))

    def action_run_unpriced(self) -> None:
        self.dismiss(Decision(ApprovalDecision.ALLOW_SESSION))

    def action_stop(self) -> None:
        self.dismiss(STOP)

    def action_decline(self) -> None:
        """Esc: stop, whether or not the question is in front on purpose (declining
        never spends)."""
        self.dismiss(STOP)

    def _say(self, text: str) -> None:
        self.query_one("#budget-problem", Static).update(Content(text))
