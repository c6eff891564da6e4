"""Test support shipped with gemtui: a wire-faithful mock LLM server and its script.

A script is a list of steps; each generation request (any provider, any endpoint) takes
the next one. Step keys, all optional:

- ``text``, ``thought`` (streamed before the text), ``function_calls``
  (``[{name, args, id?, thought_signature?}]``);
- ``chunks`` (split text and thought into N chunks) or ``chunk_tokens`` (N words a chunk);
- ``usage`` ``{prompt, output, thoughts, cached, total}`` (missing ones computed: prompt
  from the request, output and thoughts as word counts, total as their sum);
- ``finish_reason`` (Gemini names, default ``"STOP"``; ``null`` for none), ``grounding``,
  ``citations``, ``raw_chunks`` (frames sent verbatim), ``tokens_per_second``;
- ``error`` ``{status, message, retry_delay, quota_reset_delay, reason, quota_id,
  quota_metric, quota_dimensions, quota_value, headers}`` (the quota keys make a
  ``google.rpc.QuotaFailure`` violation);
- ``headers``: extra response headers of a successful answer (the providers' rate-limit
  headers, ``x-ratelimit-*`` or ``anthropic-ratelimit-*``);
- ``fault``: ``reset_before``, ``reset_after``/``cut_mid_frame``/``stall``/``hold`` (after
  ``after_chunks`` frames; ``stall`` waits ``seconds``, ``hold`` until the test calls
  ``MockLLMServer.release()``: "while the answer is still coming" without a clock),
  ``malformed_frame`` (frame ``at``), ``no_candidates``;
- ``endless``: a stream that never ends: the step's text frames (after any thought)
  are sent over and over, as fast as the client reads them or at ``tokens_per_second``;
  no finish frame ever comes (streams only; a non-streaming call answers the text once);
- ``{"count_tokens": N}`` answers the next countTokens call instead of the estimate.

The server is imported lazily so ``python -m gemtui.testing.mockllm`` runs cleanly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gemtui.testing.script import (
    ErrorSpec,
    FunctionCall,
    Step,
    StepLike,
    Usage,
    count_tokens_step,
    error_step,
    fault_step,
    filler,
    load_script,
    text_step,
    tool_step,
)

if TYPE_CHECKING:
    from gemtui.testing.mockllm import MockLLMServer, RecordedRequest

__all__ = [
    "ErrorSpec",
    "FunctionCall",
    "MockLLMServer",
    "RecordedRequest",
    "Step",
    "StepLike",
    "Usage",
    "count_tokens_step",
    "error_step",
    "fault_step",
    "filler",
    "load_script",
    "text_step",
    "tool_step",
]


def __getattr__(name: str) -> Any:
    if name in ("MockLLMServer", "RecordedRequest"):
        from gemtui.testing import mockllm

        return getattr(mockllm, name)
    raise AttributeError(f"module 'gemtui.testing' has no attribute {name!r}")
