"""The TUI end to end against each wire format: a tool call approved by key."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings
from gemtui.providers.anthropic import AnthropicGenerator
from gemtui.providers.http import make_client
from gemtui.providers.openai_compat import OpenAICompatGenerator
from gemtui.providers.text_tools import TextToolsGenerator
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app
from tests.tui.helpers import Messages


def _provider(kind: str, url: str) -> ResolvedProvider:
    if kind == "openai":
        gen = OpenAICompatGenerator(make_client(), f"{url}/v1", None)
        return ResolvedProvider("openai", "openai", gen, "qwen3-coder", 32_768)
    if kind == "text_tools":
        inner = OpenAICompatGenerator(make_client(), f"{url}/v1", None)
        return ResolvedProvider("local", "openai", TextToolsGenerator(inner), "qwen3", 32_768)
    gen = AnthropicGenerator(make_client(), url, "k")
    return ResolvedProvider("anthropic", "anthropic", gen, "claude-sonnet-4-5", 200_000)


def _call_step(kind: str, args: dict[str, str]) -> dict[str, object]:
    if kind == "text_tools":
        import json

        call = json.dumps({"tool_call": {"name": "write_file", "arguments": args}})
        return {"text": f"I will write it.\n```json\n{call}\n```"}
    return {"function_calls": [{"name": "write_file", "args": args}]}


@pytest.mark.parametrize("kind", ["openai", "anthropic", "text_tools"])
async def test_write_file_approved_by_key_on_each_wire(
    kind: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    args = {"file_path": "made.txt", "content": "made by the model\n"}
    mock_llm.enqueue(_call_step(kind, args), {"text": "Written."})
    session = Session(
        Settings(),
        _provider(kind, mock_llm.url),
        SessionOptions(workspace=workspace, stream_retry_delays=(0.0,)),
    )
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"write it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        await pilot.press("f8", "1")
        done = await seen.wait_event(AgentFinished)
        assert done.text.endswith("Written.")
    assert (workspace / "made.txt").read_text() == "made by the model\n"
    body = mock_llm.requests[-1].json
    text = str(body)
    assert "made.txt" in text  # the call and its result went back in the API's own shape
    if kind == "openai":
        assert any(m["role"] == "tool" for m in body["messages"])
    elif kind == "anthropic":
        assert any(
            block.get("type") == "tool_result"
            for m in body["messages"]
            if isinstance(m["content"], list)
            for block in m["content"]
        )
