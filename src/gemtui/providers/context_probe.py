"""Asking a local OpenAI-compatible server how large its context window is.

The chat-completions API has no such field, so each server family is asked in its own
way, most specific first: vLLM's ``max_model_len`` (and llama.cpp's ``meta.n_ctx``) in
``/v1/models``, llama.cpp's ``/props``, Ollama's ``/api/show`` (the ``num_ctx`` a
Modelfile sets, else the trained ``context_length``). Every failure is quiet: the guess
from the model name stays.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

__all__ = ["probe_context_window"]

_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)
PROBE_TIMEOUT = 3.0


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


async def _json(client: httpx.AsyncClient, method: str, url: str, **kw: Any) -> Any:
    try:
        response = await client.request(method, url, timeout=PROBE_TIMEOUT, **kw)
        if response.status_code != 200:
            return None
        return response.json()
    except (httpx.HTTPError, ValueError):
        return None


def _from_models(data: Any, model: str) -> int | None:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    mine = [m for m in items if isinstance(m, dict) and model in (m.get("id"), m.get("root"))]
    if not mine and len(items) == 1 and isinstance(items[0], dict):
        mine = items
    for item in mine:
        meta = item.get("meta")
        found = _positive(item.get("max_model_len")) or (
            _positive(meta.get("n_ctx")) if isinstance(meta, dict) else None
        )
        if found:
            return found
    return None


def _from_props(data: Any) -> int | None:
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    if isinstance(settings, dict) and _positive(settings.get("n_ctx")):
        return _positive(settings.get("n_ctx"))
    return _positive(data.get("n_ctx"))


def _from_show(data: Any) -> int | None:
    if not isinstance(data, dict):
        return None
    params = data.get("parameters")
    if isinstance(params, str) and (m := _NUM_CTX.search(params)):
        return int(m.group(1)) or None
    info = data.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if key.endswith(".context_length") and _positive(value):
                return _positive(value)
    return None


async def probe_context_window(
    client: httpx.AsyncClient, base_url: str, model: str, headers: dict[str, str] | None = None
) -> int | None:
    """The server's context window for ``model`` in tokens, or None when it does not say.

    ``base_url`` is the OpenAI-compatible base (with ``/v1``); the llama.cpp and Ollama
    routes live at the server's root."""
    base = base_url.rstrip("/")
    root = base.removesuffix("/v1")
    headers = headers or {}
    found = _from_models(await _json(client, "GET", f"{base}/models", headers=headers), model)
    if found:
        return found
    found = _from_props(await _json(client, "GET", f"{root}/props", headers=headers))
    if found:
        return found
    show = await _json(client, "POST", f"{root}/api/show", json={"model": model}, headers=headers)
    return _from_show(show)
