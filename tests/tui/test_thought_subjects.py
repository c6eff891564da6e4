"""A thought's subject is found however the stream splits it: the pane shows it as the
group's heading (never raw ``**…**``) and the transcript marks where the model thought."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done


def transcript_text(app: object) -> str:
    transcript = app.main.transcript  # type: ignore[attr-defined]
    return "\n".join(transcript.render_line(y).text for y in range(transcript.size.height))


async def test_a_subject_split_across_chunks_is_a_heading(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    thought = "**Reading the request**\n\nThe person asks for a greeting."
    mock_llm.enqueue({"thought": thought, "text": "Hello!", "chunk_tokens": 1})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        await pilot.press(*"hi", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        groups = app.main.thoughts.groups()
        assert groups == [("Reading the request", "The person asks for a greeting.")]
        text = transcript_text(app)
        assert "Thinking: Reading the request" in text
        assert "**" not in text


async def test_thinking_without_a_subject_is_still_marked(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"thought": "just mulling it over", "text": "Done.", "chunk_tokens": 1})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        await pilot.press(*"hi", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        assert "✻ Thinking…" in transcript_text(app)
        assert app.main.thoughts.groups() == [("Thinking", "just mulling it over")]
