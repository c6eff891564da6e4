"""The typed event bus between the engine and its views.

Its names load on first use (PEP 562): a view that needs only ``bus.values`` before its
first frame does not pay for the bus and every event class (issue 26).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from gemtui.bus.values import __all__ as _values_all

if TYPE_CHECKING:
    from gemtui.bus.bus import (
        EventBus as EventBus,
    )
    from gemtui.bus.bus import (
        Subscription as Subscription,
    )
    from gemtui.bus.bus import (
        current_prompt_id as current_prompt_id,
    )
    from gemtui.bus.bus import (
        merge_deltas as merge_deltas,
    )
    from gemtui.bus.bus import (
        mergeable as mergeable,
    )
    from gemtui.bus.events import *  # noqa: F403

_BUS_NAMES = ("EventBus", "Subscription", "current_prompt_id", "merge_deltas", "mergeable")


def _events_all() -> list[str]:
    from gemtui.bus.events import __all__ as names

    return list(names)


def __getattr__(name: str) -> Any:
    if name in _BUS_NAMES:
        return getattr(import_module("gemtui.bus.bus"), name)
    if name in _values_all:
        return getattr(import_module("gemtui.bus.values"), name)
    if name == "__all__":
        return [*_BUS_NAMES, *_events_all()]
    events = import_module("gemtui.bus.events")
    if name in events.__all__:
        return getattr(events, name)
    raise AttributeError(f"module 'gemtui.bus' has no attribute {name!r}")
