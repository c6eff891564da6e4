"""Drawn lines and rendered Markdown are freed when dropped, not left to the collector.

Textual cached a whole-width strip's division on the strip itself, and Rich built a new
markdown-it parser (whose linkify tables refer to themselves) for every Markdown render:
both made reference cycles out of every line drawn and every redraw of a streamed
answer's tail. With agents streaming, ~1.7 million objects in the fleet benchmark's
typing window waited for the cycle collector, whose pauses a typed key landed in
(issue 36). These tests ask the collector what a real answer, drawn in the real app,
left for it.
"""

from __future__ import annotations

import gc
import io
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment
from textual.pilot import Pilot
from textual.strip import Strip

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.strip_cycle import mend_strip_cycles
from gemtui.tui.widgets.markdown_look import _markdown_class, left_aligned_markdown
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages

ANSWER = """## Plan

Read `parser.py`, then see [the docs](https://example.com/docs) or https://example.org.

| step | file |
|------|------|
| 1 | parser.py |

```python
def parse(text: str) -> list[str]:
    return text.split()
```

- ~~old~~ new
- **done**
"""


@dataclass
class Left:
    """What became garbage only the cycle collector can free: counts by type, and the
    text of each line (``Strip``) among it."""

    kinds: Counter[str] = field(default_factory=Counter)
    lines: list[str] = field(default_factory=list)


@contextmanager
def cycles_left() -> Iterator[Left]:
    gc.collect()
    gc.disable()
    left = Left()
    try:
        yield left
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left.kinds.update(type(obj).__name__ for obj in gc.garbage)
        left.lines.extend(obj.text for obj in gc.garbage if isinstance(obj, Strip))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_a_strip_divided_at_its_width_is_freed_by_refcount() -> None:
    mend_strip_cycles()
    with cycles_left() as left:
        strip = Strip([Segment("hello "), Segment("world")])
        assert strip.divide([strip.cell_length]) == [strip]
        assert strip.divide([strip.cell_length, 99]) == [strip]  # cuts past the end drop
        assert strip.crop_extend(0, strip.cell_length, None) is strip
        del strip
    assert left.kinds["Strip"] == 0
    assert left.kinds["FIFOCache"] == 0


def test_other_divisions_are_textuals_own() -> None:
    mend_strip_cycles()
    strip = Strip([Segment("hello "), Segment("world")])
    assert [part.text for part in strip.divide([3, 8, 11])] == ["hel", "lo wo", "rld"]
    assert [part.text for part in strip.divide([5])] == ["hello"]
    assert strip.divide([3, 11]) is strip.divide([3, 11])  # still cached
    assert strip.crop_extend(2, 14, None).text == "llo world   "
    assert strip.crop_extend(6, 11, None).text == "world"


def _render(markdown: Markdown) -> str:
    console = Console(file=io.StringIO(), width=60, force_terminal=True, color_system="truecolor")
    console.print(markdown)
    return re.sub(r"id=\d+", "id=N", console.file.getvalue())  # a link's id is random


def test_markdown_renders_as_rich_builds_it_without_cycles() -> None:
    rich_built = Markdown.__new__(_markdown_class())
    Markdown.__init__(rich_built, ANSWER, code_theme="monokai")
    with cycles_left() as left:
        ours = left_aligned_markdown(ANSWER, "monokai")
        drawn = _render(ours)
        del ours
    assert drawn == _render(rich_built)
    assert "parser.py" in drawn
    assert "split" in drawn
    assert left.kinds["LinkifyIt"] == 0
    assert left.kinds["RendererHTML"] == 0


async def frames_drawn(pilot: Pilot[Any]) -> None:
    """Frames as the timer draws them, and one whole screen composed at once, whatever
    the machine's pace."""
    for _ in range(5):
        await pilot.pause(0.05)  # frames come from a timer: a poll interval, several frames
    pilot.app.export_screenshot()


async def test_an_answer_drawn_in_the_app_leaves_no_lines_to_the_collector(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": ANSWER, "chunks": 12})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(100, 40), message_hook=seen) as pilot:
        await pilot.pause()
        with cycles_left() as left:
            await pilot.press(*"plan it", "enter")
            await seen.wait_event(AgentFinished)
            await frames_drawn(pilot)
            await pilot.resize_terminal(80, 40)  # every line drawn again: the old ones drop
            await frames_drawn(pilot)
            drawn = "\n".join(app.main.transcript.render_line(y).text for y in range(30))
        assert "def parse" in drawn
    # what is left is the prompt's text as it was typed (its editor keeps a cycle of its
    # own, a line per key): no line of the transcript, the panes or the status line
    assert [line for line in left.lines if not "plan it".startswith(line.strip())] == []
    assert left.kinds["LinkifyIt"] == 0, left.kinds.most_common(8)
