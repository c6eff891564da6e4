"""The incremental Markdown renderer: how growing text splits into blocks, what is re-rendered."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from rich.console import Console
from textual.strip import Strip

from gemtui.tui.widgets import answer_render
from gemtui.tui.widgets.answer_render import (
    AnswerRender,
    code_blocks,
    render_markdown,
    split_blocks,
)


def _console() -> Console:
    return Console(width=80, color_system="truecolor", force_terminal=True, record=False)


class TestSplitBlocks:
    def test_paragraphs_split_on_blank_lines(self) -> None:
        assert split_blocks("one\ntwo\n\nthree\n") == ["one\ntwo", "three"]

    def test_atx_headings_are_blocks_of_their_own(self) -> None:
        assert split_blocks("# Title\nbody\n## Sub\nmore") == ["# Title", "body", "## Sub", "more"]

    def test_hash_without_space_is_not_a_heading(self) -> None:
        assert split_blocks("text\n#hashtag") == ["text\n#hashtag"]

    def test_setext_underline_stays_with_its_paragraph(self) -> None:
        assert split_blocks("Title\n=====\nbody\n\nSub\n---\n") == [
            "Title\n=====",
            "body",
            "Sub\n---",
        ]

    def test_thematic_break_after_blank_line_is_its_own_block(self) -> None:
        assert split_blocks("para\n\n---\n\nnext") == ["para", "---", "next"]

    def test_blank_lines_inside_a_fence_do_not_split(self) -> None:
        text = "intro\n\n```python\ndef f():\n\n    return 1\n```\n"
        assert split_blocks(text) == ["intro", "```python\ndef f():\n\n    return 1\n```"]

    def test_fence_stays_open_until_closed(self) -> None:
        text = "```\na\n\nb\n"
        assert split_blocks(text) == ["```\na\n\nb\n"]

    def test_shorter_or_other_fence_does_not_close(self) -> None:
        text = "````md\n```\ninner\n```\n~~~\n````\nafter"
        assert split_blocks(text) == ["````md\n```\ninner\n```\n~~~\n````", "after"]

    def test_text_right_after_a_closing_fence_starts_a_new_block(self) -> None:
        assert split_blocks("```\ncode\n```\nafter the fence") == [
            "```\ncode\n```",
            "after the fence",
        ]

    def test_fence_interrupts_a_paragraph(self) -> None:
        assert split_blocks("look:\n```sh\nls\n```") == ["look:", "```sh\nls\n```"]

    def test_list_items_separated_by_blank_lines_stay_one_list(self) -> None:
        text = "- one\n\n- two\n\n  continued\n\nafter"
        assert split_blocks(text) == ["- one\n\n- two\n\n  continued", "after"]

    def test_ordered_list_is_one_block(self) -> None:
        assert split_blocks("1. a\n2. b\n\n3. c\n") == ["1. a\n2. b\n\n3. c"]

    def test_fence_nested_in_a_list_item_keeps_the_list_together(self) -> None:
        text = "- step\n\n  ```py\n  x = 1\n\n  y = 2\n  ```\n- next"
        assert split_blocks(text) == [text]

    def test_heading_ends_a_list(self) -> None:
        assert split_blocks("- a\n- b\n# Next") == ["- a\n- b", "# Next"]

    def test_indented_code_keeps_its_blank_lines(self) -> None:
        assert split_blocks("para\n\n    a\n\n    b\n\nend") == ["para", "    a\n\n    b", "end"]

    def test_partial_last_line_belongs_to_the_last_block(self) -> None:
        assert split_blocks("para one\n\npara tw") == ["para one", "para tw"]

    def test_empty_text_has_no_blocks(self) -> None:
        assert split_blocks("") == []
        assert split_blocks("\n\n") == []


class TestSplitAsMarkdownReadsIt:
    """Blocks are markdown-it's own: where a hand-written scanner cut a block that the
    whole answer renders as one, the piece after the cut was drawn as something else."""

    def test_an_over_indented_fence_line_does_not_close_it(self) -> None:
        text = "```\ncode\n    ```\nmore code"  # four spaces: still code (CommonMark)
        assert split_blocks(text) == [text]

    def test_a_tab_indented_continuation_stays_in_its_list_item(self) -> None:
        text = "- item\n\n\tmore of the item"  # alone, the tab made it a code block
        assert split_blocks(text) == [text]

    def test_a_pre_block_keeps_its_blank_lines(self) -> None:
        assert split_blocks("<pre>\na\n\nb\n</pre>\nafter") == ["<pre>\na\n\nb\n</pre>", "after"]

    def test_a_table_is_a_block_of_its_own_up_to_a_blank_line(self) -> None:
        text = "intro\n| a | b |\n|---|---|\n| 1 | 2 |\nrow\n\nafter"
        assert split_blocks(text) == ["intro", "| a | b |\n|---|---|\n| 1 | 2 |\nrow", "after"]

    def test_a_link_definition_is_kept_with_its_neighbour(self) -> None:
        """markdown-it gives a definition no token: its lines are never dropped."""
        assert split_blocks("[x]: https://e.org\n\npara [x]") == ["[x]: https://e.org", "para [x]"]
        assert split_blocks("para\n\n[x]: https://e.org") == ["para\n\n[x]: https://e.org"]

    def test_a_lone_carriage_return_keeps_the_lines_in_step(self) -> None:
        assert split_blocks("one\rstill one\n\ntwo") == ["one\rstill one", "two"]


STREAMED = {
    "fence": "Intro line.\n\n```python\ndef f():\n\n    return 1\n```\nAfter the fence.\n",
    "list": "- one\n- two\n\n  still two\n\n1. first\n2. second\n\nDone.\n",
    "table": "Numbers:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nBelow the table.\n",
    "headings": "# Title\n\nText.\n\nSub\n---\nMore text.\n## Last\nEnd.\n",
    "tab": "- item\n\n\tmore of the item\n\n```\ncode\n    ```\nstill code\n",
    "tricky": "para\n#x not a heading\n- now a list\n> quote\n    lazy\n\n~~~\nopen",
}


def _inked(lines: Iterable[str]) -> list[str]:
    return [line for line in lines if line.strip()]


class TestSplitMidStream:
    """An answer arrives a character at a time: each prefix splits as markdown-it reads
    it, blocks before the growing one are final, and rendering only the changed blocks
    draws what a render of the whole text draws."""

    @pytest.mark.parametrize("name", ["fence", "list", "table", "headings"])
    def test_blocks_before_the_growing_one_are_final(self, name: str) -> None:
        text = STREAMED[name]
        final = split_blocks(text)
        for end in range(1, len(text) + 1):
            done = split_blocks(text[:end])[:-1]
            assert done == final[: len(done)], text[:end]

    @pytest.mark.parametrize("name", sorted(STREAMED))
    def test_drawing_block_by_block_draws_what_the_whole_text_draws(
        self, name: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """At every character, the lines drawn (the blank lines between blocks aside)
        are those of Rich drawing the whole text at once, and of a fresh render."""
        monkeypatch.setattr(answer_render, "FREEZE_SECONDS_PER_RENDER", 10.0)  # all at once
        console = _console()
        text = STREAMED[name]
        stream = AnswerRender()
        for end in range(1, len(text) + 1):
            stream.append(text[end - 1])
            got = [line.text.rstrip() for line in stream.render(console, 50)]
            whole = render_markdown(console, text[:end], 50, stream.code_theme)
            assert _inked(got) == _inked(line.text.rstrip() for line in whole), text[:end]
            fresh = AnswerRender()
            fresh.append(text[:end])
            assert got == [line.text.rstrip() for line in fresh.render(console, 50)]

    def test_an_empty_heading_that_grows_into_text_joins_the_paragraph(self) -> None:
        """``#`` alone is a heading; ``#x`` is not: the block before it is not final
        until the line after it is whole."""
        stream = AnswerRender()
        console = _console()
        stream.append("para\n#")
        stream.render(console, 40)
        stream.append("x")
        assert [line.text.strip() for line in stream.render(console, 40)] == ["para #x"]


class TestCodeBlocks:
    def test_fenced_contents_in_order(self) -> None:
        text = "a\n```py\nx = 1\n```\nb\n~~~\ny\n~~~\n"
        assert code_blocks(text) == ["x = 1", "y"]

    def test_an_open_fence_counts(self) -> None:
        assert code_blocks("```\nstill going\n") == ["still going"]

    def test_nested_fence_is_dedented(self) -> None:
        assert code_blocks("- a\n  ```\n  x\n  ```\n") == ["x"]

    def test_a_fence_in_a_quote_counts(self) -> None:
        assert code_blocks("> ```py\n> x = 1\n> ```\n") == ["x = 1"]

    def test_an_over_indented_close_is_code(self) -> None:
        assert code_blocks("```\na\n    ```\nb\n```") == ["a\n    ```\nb"]


class TestAnswerRender:
    def test_completed_blocks_are_never_rendered_again(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        rendered: list[str] = []

        def counting(console: Console, source: str, width: int, theme: str) -> list[Strip]:
            rendered.append(source)
            return render_markdown(console, source, width, theme)

        monkeypatch.setattr(answer_render, "render_markdown", counting)
        console = _console()
        stream = AnswerRender()
        text = (
            "# Heading\n\nSome prose here.\n\n- one\n- two\n\n```python\nprint('hi')\n```\n\nEnd."
        )
        so_far = ""
        for char in text:
            so_far += char
            stream.append(char)
            rendered.clear()
            stream.render(console, 60)
            # only the block still growing is rendered; finished ones come from the cache
            assert rendered in ([], [split_blocks(so_far)[-1]])
        assert stream.render_count <= len(text)
        before = stream.render_count
        stream.finish()
        stream.render(console, 60)
        assert stream.render_count == before
        assert len(split_blocks(text)) == 5

    @pytest.mark.parametrize("seconds", [10.0, 0.0], ids=["in-time", "cut-short"])
    def test_a_block_frozen_does_not_draw_the_live_blocks_after_it_again(
        self, monkeypatch: pytest.MonkeyPatch, seconds: float
    ) -> None:
        """Past the live limit the leading blocks freeze, so every live block moves up a
        place: each finished block is still drawn once in the whole stream (they were
        matched by place, and the whole live window was drawn again at every freeze). Cut
        short (one block per render), the rest comes on later renders, drawn once too."""
        monkeypatch.setattr(answer_render, "FREEZE_SECONDS_PER_RENDER", seconds)
        rendered: list[str] = []

        def counting(console: Console, source: str, width: int, theme: str) -> list[Strip]:
            rendered.append(source)
            return render_markdown(console, source, width, theme)

        monkeypatch.setattr(answer_render, "render_markdown", counting)
        text = "".join(
            f"## Step {n}\n\nProse of step {n}, a line.\n\n- item {n}\n- more {n}\n\n"
            f"```python\n" + "".join(f"x_{n}_{k} = {k}\n" for k in range(8)) + "```\n\n"
            for n in range(8)
        )
        assert text.count("\n") > 3 * answer_render.LIVE_LINES  # several freezes
        stream = AnswerRender()
        for start in range(0, len(text), 7):
            stream.append(text[start : start + 7])
            stream.render(_console(), 60)
            while stream.behind:
                stream.resume()
                stream.render(_console(), 60)
        stream.finish()
        lines = stream.render(_console(), 60)
        while stream.behind:
            stream.resume()
            lines = stream.render(_console(), 60)
        drawn = [s.text for s in lines]
        finished = split_blocks(text)
        assert all(rendered.count(block) <= 1 for block in finished), [
            (block[:20], rendered.count(block)) for block in finished if rendered.count(block) > 1
        ]
        monkeypatch.setattr(answer_render, "FREEZE_SECONDS_PER_RENDER", 10.0)
        whole = AnswerRender()
        whole.append(text)
        whole.finish()
        assert drawn == [s.text for s in whole.render(_console(), 60)]

    def test_appends_are_coalesced_until_render(self) -> None:
        console = _console()
        stream = AnswerRender()
        for _ in range(470):
            stream.append("word ")
        assert stream.render_count == 0
        stream.render(console, 60)
        assert stream.render_count == 1
        assert stream.render(console, 60) is stream.render(console, 60)
        assert stream.render_count == 1

    def test_a_burst_is_drawn_over_several_frames_in_order(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A burst of small blocks (below the live limit) arrives at once: each render
        draws what its time allows (one block at least), shows the blocks before it, and
        the last render equals a render in one go (the first lines come at once)."""
        monkeypatch.setattr(answer_render, "FREEZE_SECONDS_PER_RENDER", 0.0)
        text = "".join(f"Paragraph {i} with **bold** words.\n\n" for i in range(12))
        stream = AnswerRender()
        stream.append(text)
        stream.finish()
        first = stream.render(_console(), 60)
        assert stream.behind
        assert stream.render_count == 1
        assert "Paragraph 0" in first[0].text
        renders = 1
        while stream.behind:
            stream.resume()
            stream.render(_console(), 60)
            renders += 1
        assert renders == 12
        whole = AnswerRender()
        whole.append(text)
        whole.finish()
        monkeypatch.setattr(answer_render, "FREEZE_SECONDS_PER_RENDER", 10.0)
        expected = whole.render(_console(), 60)
        assert [s.text for s in stream.render(_console(), 60)] == [s.text for s in expected]

    def test_width_change_renders_again(self) -> None:
        console = _console()
        stream = AnswerRender()
        stream.append("para one\n\npara two")
        stream.render(console, 60)
        assert stream.render_count == 2
        lines = stream.render(console, 30)
        assert stream.render_count == 4
        assert all(line.cell_length == 30 for line in lines)

    def test_blocks_are_separated_by_one_blank_line(self) -> None:
        stream = AnswerRender()
        stream.append("one\n\n\n\ntwo")
        lines = [line.text.rstrip() for line in stream.render(_console(), 40)]
        assert lines == ["one", "", "two"]

    def test_code_is_highlighted(self) -> None:
        stream = AnswerRender("monokai")
        stream.append("```python\ndef f():\n    return 1\n```")
        lines = stream.render(_console(), 40)
        colours = {
            seg.style.color for line in lines for seg in line if seg.style and seg.style.color
        }
        assert len(colours) >= 2  # keyword and name differ
        assert any("def f():" in line.text for line in lines)
