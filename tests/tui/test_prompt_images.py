"""Images in the prompt (issue 38, item 3): from the clipboard (a stand-in ``wl-paste``
first on PATH) or a pasted path, shown as a chip, sent as ``inlineData`` on the Gemini
wire; refused, with the prompt given back whole, where the rules or the model say no."""

from __future__ import annotations

import base64
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from textual import events

from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, group_done
from tests.tui.test_app_wire_formats import _provider
from tests.tui.test_transcript import screen_text, settle


def _png() -> bytes:
    """A real 1×1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


PNG = _png()


def _inline_data(request: Any) -> list[dict[str, str]]:
    """Every ``inlineData`` of the person's turns in one Gemini request."""
    return [
        part["inlineData"]
        for content in request.json["contents"]
        if content.get("role") == "user"
        for part in content["parts"]
        if "inlineData" in part
    ]


def _shown(app: Any) -> str:
    return " ".join(screen_text(app.main.transcript).split())


def _chips(app: Any) -> str:
    found = list(app.main.query("#chips"))
    return str(found[0].render()) if found and found[0].display else ""


@pytest.fixture
def stand_in_wl_paste(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``wl-paste`` first on PATH that prints the PNG (and records its arguments)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    image = tmp_path / "clipboard-content.png"
    image.write_bytes(PNG)
    script = bin_dir / "wl-paste"
    script.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/args\ncat {image}\n', encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


async def test_a_clipboard_image_goes_as_inline_data_on_the_gemini_wire(
    mock_llm: MockLLMServer, workspace: Path, stand_in_wl_paste: Path
) -> None:
    mock_llm.enqueue({"text": "A red dot."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"what is this", "ctrl+v")
        await group_done(app, "image-paste")
        await pilot.pause()
        assert "clipboard.png · 69 B" in _chips(app)
        assert app.main.prompt.text == "what is this"
        await pilot.press("enter")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert _chips(app) == ""  # sent with the prompt
    assert (stand_in_wl_paste / "args").read_text().split() == [
        "--no-newline",
        "--type",
        "image/png",
    ]
    (request,) = mock_llm.requests
    assert _inline_data(request) == [
        {"mimeType": "image/png", "data": base64.b64encode(PNG).decode()}
    ]
    texts = [p.get("text") for c in request.json["contents"] for p in c["parts"]]
    assert "what is this" in texts


async def test_without_a_clipboard_tool_each_missing_one_is_named(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"typed")
        monkeypatch.setenv("PATH", str(empty))
        await pilot.press("ctrl+v")
        await group_done(app, "image-paste")
        monkeypatch.undo()
        await settle(pilot, app.main.transcript)
        assert app.main.prompt.text == "typed"
        assert _chips(app) == ""
        shown = _shown(app)
    assert "none of wl-paste, xclip, pngpaste is installed" in shown


async def test_a_pasted_path_inside_the_workspace_is_attached_and_sent(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "shots").mkdir()
    (workspace / "shots" / "my shot.png").write_bytes(PNG)
    mock_llm.enqueue({"text": "Seen."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"look: ")
        app.post_message(events.Paste(f"'{workspace}/shots/my shot.png' "))
        await pilot.pause()
        assert "my shot.png · 69 B" in _chips(app)
        assert app.main.prompt.text == "look: "
        await pilot.press("enter")
        await seen.wait_event(AgentFinished)
    (request,) = mock_llm.requests
    assert [d["mimeType"] for d in _inline_data(request)] == ["image/png"]


@pytest.mark.parametrize("where", ["outside", "symlink-out", "too-big", "not-an-image"])
async def test_a_pasted_path_the_rules_refuse_is_typed_in_as_text(
    where: str, mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.png").write_bytes(PNG)
    # The control: these same bytes, inside the workspace, are attached (test above).
    if where == "outside":
        pasted = str(outside / "secret.png")
    elif where == "symlink-out":
        (workspace / "innocent.png").symlink_to(outside / "secret.png")
        pasted = str(workspace / "innocent.png")
    elif where == "too-big":
        from gemtui.tui.image_paste import MAX_IMAGE_BYTES

        with (workspace / "huge.png").open("wb") as handle:
            handle.write(PNG)
            handle.truncate(MAX_IMAGE_BYTES + 1)
        pasted = "huge.png"
    else:
        (workspace / "notes.png").write_text("not a picture")
        pasted = "notes.png"
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"see ")
        app.post_message(events.Paste(pasted))
        await settle(pilot, app.main.transcript)
        assert app.main.prompt.text == f"see {pasted}"  # nothing lost, nothing attached
        assert _chips(app) == ""
        shown = _shown(app)
    assert "Image not attached (pasted as text)" in shown
    expected = {
        "outside": "outside",
        "symlink-out": "outside",
        "too-big": "is 20,971,521 bytes, over the 20 MB limit for images",
        "not-an-image": "is not a PNG, JPEG, GIF or WebP image",
    }[where]
    assert expected in shown.lower() if where in ("outside", "symlink-out") else expected in shown
    assert mock_llm.requests == []


async def test_a_model_without_images_refuses_and_gives_the_prompt_back_whole(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    session = Session(
        Settings(),
        _provider("text_tools", mock_llm.url),
        SessionOptions(workspace=workspace, stream_retry_delays=(0.0,)),
    )
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"describe it")
        app.post_message(events.Paste("shot.png"))
        await pilot.pause()
        assert "shot.png" in _chips(app)
        await pilot.press("enter")
        await settle(pilot, app.main.transcript)
        assert app.main.prompt.text == "describe it"
        assert "shot.png" in _chips(app)
        shown = _shown(app)
        assert "Not sent: local:qwen3 is not known to take images" in shown
        asked = [r for r in mock_llm.requests if r.path.endswith("/chat/completions")]
        assert asked == []  # no model call
        # Removing the image (Backspace at the start) lets the text go alone.
        mock_llm.enqueue({"text": "Text only."})
        await pilot.press("home", "backspace")
        assert _chips(app) == ""
        assert app.main.prompt.text == "describe it"
        await pilot.press("enter")
        await seen.wait_event(AgentFinished)
    (request,) = [r for r in mock_llm.requests if r.path.endswith("/chat/completions")]
    assert "describe it" in request.body.decode()
    assert "image_url" not in request.body.decode()


async def test_a_multi_line_paste_stays_whole_and_is_not_sent(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    pasted = "first line\nsecond line\n\nfourth line\n"
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.post_message(events.Paste(pasted))
        await pilot.pause()
        assert app.main.prompt.text == pasted
    assert mock_llm.requests == []


async def test_a_slash_command_runs_and_the_images_wait_for_the_next_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.post_message(events.Paste("shot.png"))
        await pilot.pause()
        await pilot.press(*"/vim", "enter")  # a command with an image attached: it runs
        await pilot.pause()
        assert app.main.prompt.vim is not None
        assert "shot.png" in _chips(app)  # and the image is still there
    assert [r for r in mock_llm.requests if r.method == "POST"] == []


async def test_an_image_goes_as_a_base64_image_block_on_the_anthropic_wire(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    mock_llm.enqueue({"text": "A dot."})
    session = Session(
        Settings(),
        _provider("anthropic", mock_llm.url),
        SessionOptions(workspace=workspace, stream_retry_delays=(0.0,)),
    )
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"what is it")
        app.post_message(events.Paste("shot.png"))
        await pilot.pause()
        await pilot.press("enter")
        await seen.wait_event(AgentFinished)
    (request,) = [r for r in mock_llm.requests if r.path.endswith("/messages")]
    blocks = [b for m in request.json["messages"] for b in m["content"] if isinstance(b, dict)]
    source = {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()}
    assert {"type": "image", "source": source} in blocks
