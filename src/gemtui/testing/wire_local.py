"""What local OpenAI-compatible servers say about themselves: their context window.

Shapes as the real servers send them (fields trimmed to the ones clients read, plus a
few neighbours so a client cannot rely on the body being minimal):

- llama.cpp ``GET /props``: ``default_generation_settings.n_ctx`` (per slot);
- Ollama ``POST /api/show`` ``{"model": …}``: ``model_info["<arch>.context_length"]``
  (what the model was trained for) and ``parameters`` text with ``num_ctx`` when the
  Modelfile sets the window actually used;
- vLLM ``GET /v1/models``: ``max_model_len`` on each model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["LocalServer", "api_show", "models_list", "props"]


@dataclass
class LocalServer:
    """Which local server the mock plays (None: a plain OpenAI-compatible one)."""

    kind: str | None = None
    """"llama.cpp", "ollama" or "vllm"."""
    context_window: int = 8192
    trained_context: int = 32768


def props(server: LocalServer, model: str) -> dict[str, Any] | None:
    if server.kind != "llama.cpp":
        return None
    return {
        "default_generation_settings": {
            "n_ctx": server.context_window,
            "params": {"n_predict": -1, "temperature": 0.8},
        },
        "total_slots": 1,
        "model_alias": model,
        "model_path": f"/models/{model}.gguf",
        "chat_template": "{{ messages }}",
        "build_info": "b0000-mock",
    }


def api_show(server: LocalServer, model: str) -> dict[str, Any] | None:
    if server.kind != "ollama":
        return None
    return {
        "modelfile": f"FROM {model}",
        "parameters": f'num_ctx                        {server.context_window}\nstop "<|im_end|>"',
        "template": "{{ .Prompt }}",
        "details": {"family": "qwen2", "parameter_size": "494.03M"},
        "model_info": {
            "general.architecture": "qwen2",
            "general.parameter_count": 494032768,
            "qwen2.context_length": server.trained_context,
            "qwen2.embedding_length": 896,
        },
        "capabilities": ["completion", "tools"],
    }


def models_list(server: LocalServer, listing: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI model list, with vLLM's ``max_model_len`` when the mock plays vLLM."""
    if server.kind == "vllm":
        for item in listing.get("data", []):
            item["max_model_len"] = server.context_window
            item["owned_by"] = "vllm"
    return listing
