"""The error tree of gemtui and the exit codes the outside world relies on.

::

    GemtuiError
    ├── FatalError(exit_code)              ends a headless run with its exit code
    │   ├── FatalAuthenticationError       41  no key, bad key, OAuth failed
    │   │   └── AccountRefusedError        41  Google refused the account for Code Assist
    │   ├── FatalInputError                42  bad flag, empty prompt, bad argument
    │   ├── FatalConfigError               52  unreadable or invalid settings
    │   ├── FatalTurnLimitedError          53  --max-turns reached
    │   ├── FatalBudgetError               54  budget reached, or no price under a cap
    │   └── FatalCancellationError         130 Ctrl-C, Esc, cancel
    ├── ApiError(status, message, details) an HTTP error from a model API
    │   ├── RetryableApiError              429, 499, 5xx: the retry policy may try again
    │   │   └── QuotaExhaustedError        terminal quota (daily, capacity, limit 0):
    │   │                                  not retried, a reason to fall back
    │   └── ModelNotFoundError             404
    ├── TransportError                     connect/read failure, reset, timeout
    │   └── NothingListeningError          a loopback port refused the connection: retried
    │                                      only briefly (no server is there to wait for)
    ├── StreamError                        a stream that broke or was invalid after it began
    ├── AnswerTooLongError                 an answer past ``chat.max_answer_chars``: stopped,
    │                                      not retried (asking again would flood again)
    └── HookBlockedError                   a BeforeModel/AfterModel hook refused the request
        │                                  or the answer: the turn ends, not retried
        └── HookStoppedError               its ``continue: false``: the prompt ends as done

Callers catch ``FatalError`` to turn it into an exit code, ``ApiError`` to show the
server's message, and ``GemtuiError`` for everything gemtui raises on purpose.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EXIT_AUTH",
    "EXIT_BUDGET",
    "EXIT_CANCELLED",
    "EXIT_CONFIG",
    "EXIT_ERROR",
    "EXIT_INPUT",
    "EXIT_OK",
    "EXIT_TURN_LIMIT",
    "AccountRefusedError",
    "AnswerTooLongError",
    "ApiError",
    "FatalAuthenticationError",
    "FatalBudgetError",
    "FatalCancellationError",
    "FatalConfigError",
    "FatalError",
    "FatalInputError",
    "FatalTurnLimitedError",
    "GemtuiError",
    "GoogleErrorDetails",
    "HookBlockedError",
    "HookStoppedError",
    "ModelNotFoundError",
    "NothingListeningError",
    "QuotaExhaustedError",
    "QuotaViolation",
    "RetryableApiError",
    "StreamError",
    "TransportError",
    "api_error_from_response",
    "parse_duration",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_AUTH = 41
EXIT_INPUT = 42
EXIT_CONFIG = 52
EXIT_TURN_LIMIT = 53
EXIT_BUDGET = 54
EXIT_CANCELLED = 130


class GemtuiError(Exception):
    """Base of every error gemtui raises on purpose."""


class FatalError(GemtuiError):
    """An error that ends a run; ``exit_code`` is what the process returns."""

    exit_code: int = EXIT_ERROR

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class FatalAuthenticationError(FatalError):
    """No usable key or sign-in: exit 41, with what to set."""

    exit_code = EXIT_AUTH


class AccountRefusedError(FatalAuthenticationError):
    """Google refused the signed-in account for Code Assist (``ineligibleTiers``, e.g.
    ``UNSUPPORTED_CLIENT``): signing in again cannot help, another way to Gemini can.
    A class of its own so the TUI offers those ways instead of the sign-in dialog."""

    def __init__(self, message: str, *, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        """Google's own words (``reasonMessage``)."""


class FatalInputError(FatalError):
    """A bad flag, prompt or argument: exit 42."""

    exit_code = EXIT_INPUT


class FatalConfigError(FatalError):
    """A settings file or value that cannot be used: exit 52, naming the key."""

    exit_code = EXIT_CONFIG


class FatalTurnLimitedError(FatalError):
    """The prompt hit ``--max-turns``: exit 53."""

    exit_code = EXIT_TURN_LIMIT


class FatalBudgetError(FatalError):
    """A spending cap was reached, or a model has no price while a cap is set: exit 54."""

    exit_code = EXIT_BUDGET


class FatalCancellationError(FatalError):
    """The person cancelled (Ctrl-C, SIGTERM): exit 130."""

    exit_code = EXIT_CANCELLED


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s)?\s*$")
_RESET_AFTER = re.compile(
    r"\b(?:reset|retry)\s+(?:after|in)\s+([0-9]*\.?[0-9]+)\s*"
    r"(ms|milliseconds?|s|secs?|seconds?)\b",
    re.IGNORECASE,
)
"""Delays Google writes in the message: "reset after 17s", "Please retry in 31.5s.",
"retry after 17s", "retry in 500ms"."""


def parse_duration(value: str | None) -> float | None:
    """Seconds from a Google duration ("34.07s", "900ms", "17") or None if unparseable."""
    if not value:
        return None
    m = _DURATION.match(value)
    if not m:
        return None
    number = float(m.group(1))
    return number / 1000 if m.group(2) == "ms" else number


_PERIODS = (("PerDay", "per day"), ("Daily", "per day"), ("PerMinute", "per minute"))


@dataclass(frozen=True)
class QuotaViolation:
    """One ``google.rpc.QuotaFailure`` violation: which quota ran out, and for what."""

    quota_id: str
    """e.g. ``GenerateRequestsPerDayPerProjectPerModel-FreeTier``."""
    metric: str = ""
    """e.g. ``generativelanguage.googleapis.com/generate_content_free_tier_requests``."""
    dimensions: tuple[tuple[str, str], ...] = ()
    """What the quota is counted per (``model``, ``location``)."""
    value: str = ""
    """The quota's size, when the server said it."""

    @property
    def period(self) -> str:
        """``per day``, ``per minute``, ``per hour`` (from the quota's id), or empty."""
        found = (w for m, w in _PERIODS if m in self.quota_id)
        return next(found, "")

    def describe(self) -> str:
        """``GenerateRequestsPerDay… (per day; model gemini-2.5-pro, limit 50)``."""
        said = [self.period] if self.period else []
        said += [f"{k} {v}" for k, v in self.dimensions]
        if self.value:
            said.append(f"limit {self.value}")
        return f"{self.quota_id} ({'; '.join(said)})" if said else self.quota_id


@dataclass(frozen=True)
class GoogleErrorDetails:
    """The parts of a google.rpc error ``details`` list that drive retry and fallback."""

    retry_delay: float | None = None
    """RetryInfo.retryDelay in seconds."""
    quota_reset_delay: float | None = None
    """ErrorInfo.metadata.quotaResetDelay in seconds."""
    reasons: tuple[str, ...] = ()
    """ErrorInfo reasons, e.g. QUOTA_EXHAUSTED, MODEL_CAPACITY_EXHAUSTED."""
    quota_ids: tuple[str, ...] = ()
    """QuotaFailure violations' quotaId, e.g. GenerateRequestsPerDayPerProject..."""
    violations: tuple[QuotaViolation, ...] = ()
    """The QuotaFailure violations whole: which quota, counted per what, how large."""
    raw: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    @classmethod
    def parse(cls, details: Any) -> GoogleErrorDetails:
        if not isinstance(details, list):
            return cls()
        retry_delay = quota_reset = None
        reasons: list[str] = []
        quota_ids: list[str] = []
        violations: list[QuotaViolation] = []
        for d in details:
            if not isinstance(d, dict):
                continue
            kind = str(d.get("@type", ""))
            if kind.endswith("RetryInfo"):
                retry_delay = parse_duration(d.get("retryDelay"))
            elif kind.endswith("ErrorInfo"):
                if d.get("reason"):
                    reasons.append(str(d["reason"]))
                meta = d.get("metadata") or {}
                if isinstance(meta, dict) and meta.get("quotaResetDelay"):
                    quota_reset = parse_duration(meta.get("quotaResetDelay"))
            elif kind.endswith("QuotaFailure"):
                for v in d.get("violations") or []:
                    if isinstance(v, dict) and v.get("quotaId"):
                        quota_ids.append(str(v["quotaId"]))
                        violations.append(_violation(v))
        return cls(
            retry_delay=retry_delay,
            quota_reset_delay=quota_reset,
            reasons=tuple(reasons),
            quota_ids=tuple(quota_ids),
            violations=tuple(violations),
            raw=tuple(d for d in details if isinstance(d, dict)),
        )


def _violation(v: dict[str, Any]) -> QuotaViolation:
    dims = v.get("quotaDimensions")
    pairs = tuple((str(k), str(x)) for k, x in dims.items()) if isinstance(dims, dict) else ()
    return QuotaViolation(
        quota_id=str(v["quotaId"]),
        metric=str(v.get("quotaMetric") or ""),
        dimensions=pairs,
        value=str(v.get("quotaValue") or ""),
    )


class ApiError(GemtuiError):
    """An HTTP error from a model API, with the server's message and parsed details."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        details: GoogleErrorDetails | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.details = details or GoogleErrorDetails()
        which = "; ".join(v.describe() for v in self.details.violations)
        super().__init__(f"[{status}] {message}" + (f" Quota: {which}." if which else ""))
        self.status = status
        self.message = message
        self.retry_after = retry_after

    @property
    def server_delay(self) -> float | None:
        """The delay the server asked for, from any of the places servers put it."""
        for value in (self.details.retry_delay, self.details.quota_reset_delay, self.retry_after):
            if value is not None:
                return value
        m = _RESET_AFTER.search(self.message)
        if m:
            n = float(m.group(1))
            return n / 1000 if m.group(2).lower().startswith("m") else n
        return None


class RetryableApiError(ApiError):
    """429, 499 or 5xx: worth another attempt."""


class QuotaExhaustedError(RetryableApiError):
    """A quota that another attempt soon will not fix; offer the fallback model."""


class ModelNotFoundError(ApiError):
    """404: the model does not exist or is not available to this key."""


class TransportError(GemtuiError):
    """The connection failed (connect, read, reset, timeout) before an HTTP answer."""


class NothingListeningError(TransportError):
    """This machine refused the connection: no server listens on that port.

    Waiting seconds for it is pointless (a server starting up is the only hope), so the
    retry policy tries again only after short waits, and the message names the URL.
    """

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message)
        self.url = url


class StreamError(GemtuiError):
    """A stream that broke or turned out invalid after its first chunk."""

    def __init__(self, message: str, *, kind: str = "broken") -> None:
        super().__init__(message)
        self.kind = kind


class AnswerTooLongError(GemtuiError):
    """The model's answer passed the size cap; what arrived until then is kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"The model's answer passed {limit:,} characters and was stopped; "
            "what arrived is kept. Raise chat.max_answer_chars if answers this long are expected."
        )
        self.limit = limit


class HookBlockedError(GemtuiError):
    """A model hook (BeforeModel, AfterModel) blocked the call: the turn ends with why."""


class HookStoppedError(HookBlockedError):
    """A model hook answered ``continue: false``: the agent loop ends there, not failed."""


_TERMINAL_REASONS = {"MODEL_CAPACITY_EXHAUSTED", "QUOTA_EXHAUSTED"}
_MAX_SERVER_DELAY = 300.0


def _is_terminal_quota(message: str, details: GoogleErrorDetails, delay: float | None) -> bool:
    if any(("PerDay" in q or "Daily" in q) for q in details.quota_ids):
        return True
    if _TERMINAL_REASONS.intersection(details.reasons):
        return True
    if re.search(r"limit:\s*0\b", message):
        return True
    return delay is not None and delay > _MAX_SERVER_DELAY


def api_error_from_response(
    status: int, body: bytes | str, headers: dict[str, str] | None = None
) -> ApiError:
    """Build the right ApiError subclass from an HTTP status and a (Google) error body."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    message = text.strip() or f"HTTP {status}"
    details = GoogleErrorDetails()
    try:
        data = json.loads(text)
    except (ValueError, TypeError):
        data = None
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            msg = err.get("message")
            if isinstance(msg, str) and msg:
                message = msg
            details = GoogleErrorDetails.parse(err.get("details"))
        elif isinstance(err, str):
            message = err
    retry_after = None
    if headers:
        lowered = {k.lower(): v for k, v in headers.items()}
        retry_after = parse_duration(lowered.get("retry-after"))
    cls: type[ApiError]
    if status == 404:
        cls = ModelNotFoundError
    elif status in (429, 499) or status >= 500:
        probe = ApiError(status, message, details=details, retry_after=retry_after)
        if status == 429 and _is_terminal_quota(message, details, probe.server_delay):
            cls = QuotaExhaustedError
        else:
            cls = RetryableApiError
    else:
        cls = ApiError
    return cls(status, message, details=details, retry_after=retry_after)
