"""How rendered Markdown looks: the theme decides, through component classes.

Rich's Markdown draws headings in its own colours (an underlined magenta ``##`` that
reads like a link, a centred ``#``) and inline code bold cyan on black whatever the
theme. A widget that renders Markdown declares :data:`MARKDOWN_STYLES` as component
classes (``<prefix>--md-h1`` …), styles them in CSS with theme tokens, and renders
inside ``console.use_theme(markdown_theme(...))`` so every Rich ``markdown.*`` style
comes from the Textual theme. Headings are also left-aligned at every level.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.theme import Theme

if TYPE_CHECKING:
    from rich.console import JustifyMethod
    from rich.markdown import Markdown, MarkdownElement

__all__ = [
    "MARKDOWN_CSS",
    "MARKDOWN_STYLES",
    "ThemedMarkdown",
    "left_aligned_markdown",
    "markdown_theme",
    "warm_lexers",
    "warm_markdown",
]

MARKDOWN_STYLES: dict[str, tuple[str, ...]] = {
    # component name → the Rich styles it sets
    "md-h1": ("markdown.h1",),
    "md-h2": ("markdown.h2",),
    "md-h3": ("markdown.h3",),
    "md-h4": ("markdown.h4", "markdown.h5", "markdown.h6", "markdown.h7"),
    "md-code": ("markdown.code",),
    "md-link": ("markdown.link", "markdown.link_url"),
    "md-quote": ("markdown.block_quote",),
    "md-bullet": ("markdown.item.bullet", "markdown.item.number", "markdown.list"),
    "md-rule": ("markdown.hr", "markdown.table.border", "markdown.h1.border"),
}

MARKDOWN_CSS = """
& > .{p}--md-h1 {{ color: $primary; text-style: bold; }}
& > .{p}--md-h2 {{ color: $foreground; text-style: bold; }}
& > .{p}--md-h3 {{ color: $foreground; text-style: bold italic; }}
& > .{p}--md-h4 {{ color: $text-muted; text-style: italic; }}
& > .{p}--md-code {{ color: $text-accent; background: $foreground 7%; }}
& > .{p}--md-link {{ color: $text-primary; text-style: underline; }}
& > .{p}--md-quote {{ color: $text-muted; text-style: italic; }}
& > .{p}--md-bullet {{ color: $text-primary; text-style: bold; }}
& > .{p}--md-rule {{ color: $panel-lighten-2; }}
"""
"""The default look; ``{p}`` is the widget's component prefix (nest it in its CSS)."""


def markdown_theme(style: Callable[[str], Style]) -> Theme:
    """A Rich theme whose ``markdown.*`` styles are the component styles ``style`` gives."""
    styles: dict[str, str | Style] = {}
    for name, targets in MARKDOWN_STYLES.items():
        look = style(name)
        for target in targets:
            styles[target] = look
    return Theme(styles, inherit=True)


@cache
def _markdown_class() -> type[Markdown]:
    from markdown_it import MarkdownIt
    from rich.markdown import Heading, Markdown

    class _Heading(Heading):
        LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(Heading.LEVEL_ALIGN, "left")

    parser = MarkdownIt().enable("strikethrough").enable("table")  # Rich's own configuration
    parser.parse("a")  # its rule chains compile on a first parse: here, before two threads share it

    class _Markdown(Markdown):
        elements: ClassVar[dict[str, type[MarkdownElement]]] = {
            **Markdown.elements,
            "heading_open": _Heading,
        }

        def __init__(self, markup: str, code_theme: str = "monokai") -> None:
            # Rich builds a new MarkdownIt per instance: ~0.4 ms, and linkify's tables make
            # ~40 objects only the cycle collector frees, at every redraw of a streamed
            # answer's tail (issue 36). One parser serves every render: parse keeps no state.
            self.markup = markup
            self.parsed = parser.parse(markup)
            self.code_theme = code_theme
            self.justify: JustifyMethod | None = None
            self.style = "none"
            self.hyperlinks = True
            self.inline_code_lexer: str | None = None
            self.inline_code_theme = code_theme

    return _Markdown


def left_aligned_markdown(source: str, code_theme: str) -> Markdown:
    """Rich Markdown with every heading level on the left (Rich centres ``#``)."""
    return _markdown_class()(source, code_theme=code_theme)


def warm_markdown(busy: Callable[[], bool] = lambda: False) -> bool:
    """Render a little Markdown off screen, so the first answer's first line does not wait
    for Rich's Markdown to load (its imports and markdown-it's rules: 40-60 ms of CPU
    between the first chunk and the first line). The engine thread calls it once the
    engine is handed over and no prompt waits (issue 34).

    It runs in slices and asks ``busy`` before each: once a prompt is being sent it stops,
    so it never holds the interpreter while a request is on its way (what it did not load,
    the first answer loads itself). True when every slice ran.
    """
    import importlib

    for name in _WARM_MODULES:
        if busy():
            return False
        importlib.import_module(name)
    for step in (_markdown_class, _warm_render):
        if busy():
            return False
        step()
    return True


def warm_lexers(busy: Callable[[], bool] = lambda: False) -> bool:
    """Make the lexers answers use most, so a first code block does not wait for its
    lexer's rules to compile on the UI thread. Each is 5-60 ms of one slice that cannot
    stop halfway: the engine thread runs this only while nobody is writing or sending a
    prompt (issue 34), and ``busy`` is asked before each. True when every one was made.

    Not while a resumed session's code blocks are being drawn: Pygments makes a lexer's
    first instance without a lock.
    """
    from pygments.lexers import get_lexer_by_name

    for language in _WARM_LEXERS:  # a lexer's rules compile when it is first made
        if busy():
            return False
        get_lexer_by_name(language)
    return True


_WARM_LEXERS = ("python", "bash", "typescript", "javascript", "json")
"""The code blocks answers hold most: the first one's first line does not wait for its
lexer's rules to compile (Python's: ~25 ms, on the UI thread, in the peer harness run)."""


_WARM_MODULES = (
    "markdown_it.common.utils",
    "markdown_it.rules_inline",
    "markdown_it.rules_block",
    "markdown_it",
    "rich.table",
    "rich.syntax",
    "rich.markdown",
)
"""What Rich's Markdown loads, a few milliseconds of import each: ``warm_markdown``'s slices."""


def _warm_render() -> None:
    import io

    console = Console(file=io.StringIO(), width=40)
    sample = left_aligned_markdown("# a\n\n- *b* `c` [d](e)", "monokai")
    console.render_lines(sample, console.options, pad=False)


class ThemedMarkdown:
    """A Rich renderable: Markdown drawn with a theme's ``markdown.*`` styles.

    For widgets whose renderable Textual draws later (a ``Static``, a pane), where a
    ``console.use_theme`` around the call cannot reach: the theme is pushed while this
    renders itself.
    """

    def __init__(self, source: str, theme: Theme, code_theme: str = "monokai") -> None:
        self.source = source
        self.theme = theme
        self.code_theme = code_theme

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        with console.use_theme(self.theme):
            lines = console.render_lines(
                left_aligned_markdown(self.source, self.code_theme), options, pad=False
            )
        new_line = Segment.line()
        for line in lines:
            yield from line
            yield new_line
