"""Pytest fixtures for the mock LLM server.

Register with ``pytest_plugins = ["gemtui.testing.pytest_plugin"]`` in a conftest.py.
``mock_llm`` runs on the test's own event loop; ``mock_llm_thread`` runs on a private loop
in a daemon thread, for sync tests that drive a subprocess or a blocking client.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from gemtui.testing.mockllm import MockLLMServer

__all__ = ["mock_llm", "mock_llm_thread"]


@pytest_asyncio.fixture
async def mock_llm() -> AsyncIterator[MockLLMServer]:
    async with MockLLMServer() as srv:
        yield srv


@pytest.fixture
def mock_llm_thread() -> Iterator[MockLLMServer]:
    with MockLLMServer.in_thread() as srv:
        yield srv
