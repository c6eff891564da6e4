"""How the prompt looks with an image attached and vim keys on (issue 38, items 2–3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gemtui.tui.image_paste import ImageAttachment
from gemtui.tui.widgets.vim_keys import switch_vim
from tests.tui.test_prompt_images import PNG
from tests.tui.test_snapshots import _app, _settle


class TestPromptWithAnImage:
    def test_image_chip_and_vim_mode_at_80x24(self, snap_compare: Any, tmp_path: Path) -> None:
        """Above the prompt, one chip `▣ screenshot.png · 69 B` and the hint `⌫ at the
        start of the prompt removes the last`; the prompt holds "what is in this
        picture?"; the status line shows `NORMAL` after the approval mode."""

        async def attach(pilot: Pilot[Any]) -> None:
            app: Any = pilot.app
            prompt = app.main.prompt
            prompt.vim = switch_vim(prompt, True)
            await pilot.press(*"what is in this picture?", "escape")
            prompt.attach(ImageAttachment("screenshot.png", "image/png", PNG))
            await _settle(pilot)

        app = _app(tmp_path)
        assert snap_compare(app, terminal_size=(80, 24), run_before=attach)
