"""The typed event bus between the engine and its views."""

from gemtui.bus.bus import EventBus, Subscription, current_prompt_id, merge_deltas, mergeable
from gemtui.bus.events import *  # noqa: F403
from gemtui.bus.events import __all__ as _events_all

__all__ = [
    "EventBus",
    "Subscription",
    "current_prompt_id",
    "merge_deltas",
    "mergeable",
    *_events_all,
]
