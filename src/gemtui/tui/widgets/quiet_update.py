"""Update a ``Static`` without laying the whole screen out when its size cannot change.

``Static.update`` asks for a layout of the screen every time. A pane redrawn a few times a
second while an answer streams (the usage figures) made every third frame a full layout,
and a key typed meanwhile waited for it (issue 36's key → frame figure).
"""

from __future__ import annotations

from typing import cast

from textual.content import Content
from textual.css.styles import RulesMap
from textual.widgets import Static

__all__ = ["update_static"]


def update_static(static: Static, content: Content) -> None:
    """Show ``content``; lay out again only when its height (or an auto width) may change."""
    previous = static.content
    if isinstance(previous, Content) and (previous.plain, previous.spans) == (
        content.plain,
        content.spans,
    ):
        return
    width = static.content_region.width
    styles = static.styles
    rules = cast(RulesMap, styles)  # what Textual's own widgets pass to get_height
    same = (
        isinstance(previous, Content)
        and width > 0
        and not (styles.width is not None and styles.width.is_auto)
        and previous.get_height(rules, width) == content.get_height(rules, width)
    )
    static.update(content, layout=not same)
