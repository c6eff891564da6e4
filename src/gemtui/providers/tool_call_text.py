"""Tool calls written as text, in every format local models use, parsed as they stream.

Small models behind OpenAI-compatible servers often write their calls into the message
text instead of ``tool_calls``, each family in its own way:

- ``{"tool_call": {"name": …, "arguments": {…}}}`` — the convention our guidance teaches;
- bare ``{"name": …, "arguments"|"parameters": {…}}`` objects, or a list of them (Qwen and
  Llama chat templates), ``{"function": {…}}`` as in OpenAI's own shape;
- ``<tool_call>{…}</tool_call>`` (Hermes, Qwen);
- ``<|python_tag|>{…}`` (Llama 3.1+), several joined by ``;``;
- ``[TOOL_CALLS] [{…}]`` and ``[TOOL_CALLS]name[ARGS]{…}`` (Mistral);

each fenced (```json) or bare, one or several, arguments as an object or a JSON string.

Only names the request declared are calls: anything else, and prose that merely contains
JSON, stays prose. A bare object counts only at the start of a line (mid-sentence JSON is
an example, not a call); the explicit forms count anywhere. Text that may be the start of
a call is held back until it can be decided, so visible deltas stay incremental and a
call's JSON never flashes on screen. JSON values are matched incrementally, so a long
call fed one character at a time costs linear time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from msgspec import Struct, field

__all__ = ["CallExtractor", "WholeTextCalls", "calls_in", "parse_text_calls"]

Call = tuple[str, dict[str, Any]]

_FENCE = "```"
_TOOL_CALL_OPEN, _TOOL_CALL_CLOSE = "<tool_call>", "</tool_call>"
_PYTHON_TAG = "<|python_tag|>"
_LLAMA_ENDS = ("<|eom_id|>", "<|eot_id|>")
_MISTRAL = "[TOOL_CALLS]"
_TAGS = (_TOOL_CALL_OPEN, _PYTHON_TAG)
_FENCE_INFOS = frozenset({"", "json", "json5", "jsonc", "tool_call", "tool_calls", "tool_code"})
_EXPLICIT_KEYS = frozenset({"tool_call", "tool_calls", "function_call"})
"""First keys that make an object a call wherever it stands."""
_BARE_KEYS = frozenset({"name", "function", "arguments", "parameters", "type"})
"""First keys of the bare forms, which count only at the start of a line."""
_ARG_KEYS = ("arguments", "parameters", "args", "input")
_CANDIDATE = re.compile(r"[{\[<]|```")
_MISTRAL_NAME = re.compile(r"\s*([A-Za-z_][\w.\-]*)(?:\[CALL_ID\][^\[]*)?\[ARGS\]")
_FENCE_INFO = re.compile(r"[ \t]*([\w+#.-]*)[ \t]*")
_KEY = re.compile(r'\s*"((?:[^"\\]|\\.)*)"')


def _args_of(call: dict[str, Any]) -> dict[str, Any] | None:
    for key in _ARG_KEYS:
        if key in call:
            args = call[key]
            break
    else:
        return {}
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return None
    return args if isinstance(args, dict) else None


def calls_in(obj: Any, names: Collection[str] | None) -> list[Call] | None:
    """The calls a parsed JSON value holds, or None when it is not (all) calls.

    ``names`` are the declared tools (None accepts any name)."""
    items: list[Any]
    if isinstance(obj, list):
        items = obj
    elif isinstance(obj, dict) and isinstance(obj.get("tool_calls"), list):
        items = obj["tool_calls"]
    else:
        items = [obj]
    calls: list[Call] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        call = item.get("tool_call") or item.get("function_call") or item
        if isinstance(call, dict) and isinstance(call.get("function"), dict):
            call = call["function"]
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return None
        if names is not None and call["name"] not in names:
            return None
        args = _args_of(call)
        if args is None:
            return None
        calls.append((call["name"], args))
    return calls or None


class _Ends:
    """Where JSON values starting at given offsets end, scanned incrementally.

    The buffer only grows at its end (and loses a prefix, see ``shift``), so the state
    reached by an earlier scan stays valid and is resumed rather than redone."""

    def __init__(self) -> None:
        self._state: dict[int, tuple[int, int, bool, bool]] = {}
        self._done: dict[int, int] = {}

    def end(self, text: str, start: int) -> int:
        """Index after the object or array opening at ``start``, or -1 if not closed yet."""
        if start in self._done:
            return self._done[start]
        i, depth, in_str, escaped = self._state.pop(start, (start, 0, False, False))
        n = len(text)
        while i < n:
            ch = text[i]
            i += 1
            if in_str:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
                if depth <= 0:
                    self._done[start] = i
                    return i
        self._state[start] = (i, depth, in_str, escaped)
        return -1

    def shift(self, k: int) -> None:
        if k:
            self._state = {
                s - k: (i - k, d, q, e) for s, (i, d, q, e) in self._state.items() if s >= k
            }
            self._done = {s - k: e - k for s, e in self._done.items() if s >= k}


class _Try(Struct):
    """What stands at a candidate position: a call, not one (skip ``skip`` chars), or more
    text is needed to tell."""

    status: str
    end: int = 0
    calls: list[Call] = field(default_factory=list)
    skip: int = 1


_MORE = _Try("more")


class CallExtractor:
    """Incremental parser: feed text, get back the part that is safe to show.

    ``names``: the declared tools (None accepts any name). ``preserve_context`` keeps a
    call's text in the visible output too. ``malformed`` is set when an explicit call
    form (the ``tool_call`` key, the tags) held JSON that does not parse.
    """

    def __init__(
        self, names: Collection[str] | None = None, *, preserve_context: bool = False
    ) -> None:
        self.names = frozenset(names) if names is not None else None
        self.preserve_context = preserve_context
        self.calls: list[Call] = []
        self.malformed = False
        self._buf = ""
        self._bol = True
        """Whether the buffer starts at the start of a line."""
        self._in_code = False
        """Inside a fenced block that is not a call (code): only its closing fence counts."""
        self._after_call = False
        """A call just ended: a ``,`` or ``;`` after it separates calls, it is not prose."""
        self._cut_off = False
        self._ends = _Ends()

    def feed(self, text: str) -> str:
        self._buf += text
        return self._scan(final=False)

    def flush(self, *, cut_off: bool = False) -> str:
        """The rest of the text. ``cut_off``: the answer hit its token limit, so an object
        left open was cut, not finished with its braces forgotten (never closed then)."""
        self._cut_off = cut_off
        return self._scan(final=True)

    # -- the scan ------------------------------------------------------------------------
    def _scan(self, *, final: bool) -> str:
        buf, out, pos = self._buf, [], 0
        while True:
            pos = self._skip_separator(buf, pos)
            start = buf.find(_FENCE, pos) if self._in_code else _find(buf, pos)
            if start < 0:
                keep = 0 if final else min(len(buf) - len(buf.rstrip("`")), len(buf) - pos)
                out.append(buf[pos : len(buf) - keep])
                self._drop(buf, len(buf) - keep)
                break
            out.append(buf[pos:start])
            found = self._try(buf, start, final)
            if found.status == "more":
                self._drop(buf, start)
                break
            if found.status == "no":
                out.append(buf[start : start + found.skip])
                pos = start + found.skip
                continue
            self.calls.extend(found.calls)
            if self.preserve_context:
                out.append(buf[start : found.end])
            pos = found.end
            self._after_call = True
        return "".join(out)

    def _skip_separator(self, buf: str, pos: int) -> int:
        """Past the ``,`` or ``;`` (and the blanks before it) right after a call."""
        if not self._after_call:
            return pos
        j = pos
        while j < len(buf) and buf[j] in " \t":
            j += 1
        if j >= len(buf):
            return pos
        self._after_call = False
        return j + 1 if buf[j] in ",;" else pos

    def _drop(self, buf: str, k: int) -> None:
        """Keep ``buf[k:]`` as the buffer, remembering whether it starts a line."""
        self._bol = self._line_start(buf, k)
        self._buf = buf[k:]
        self._ends.shift(k)

    def _line_start(self, buf: str, i: int) -> bool:
        j = buf.rfind("\n", 0, i)
        if buf[j + 1 : i].strip(" \t"):
            return False
        return j >= 0 or self._bol

    def _try(self, buf: str, start: int, final: bool) -> _Try:
        if buf.startswith(_FENCE, start):
            return self._fence(buf, start, final)
        ch = buf[start]
        if ch == "<":
            return self._tag(buf, start, final)
        if ch == "[" and (buf.startswith(_MISTRAL, start) or _prefix_of(buf, start, _MISTRAL)):
            if not buf.startswith(_MISTRAL, start):
                return _MORE if not final else _Try("no")
            return self._mistral(buf, start + len(_MISTRAL), final)
        return self._json(buf, start, final)

    # -- bare or explicit JSON -----------------------------------------------------------
    def _json(self, buf: str, start: int, final: bool) -> _Try:
        """An object or a list of objects outside any fence or tag."""
        head = start
        if buf[start] == "[":
            body = buf[start + 1 :].lstrip()
            if not body:
                return _MORE if not final else _Try("no")
            if body[0] != "{":
                return _Try("no")
            head = len(buf) - len(body)
        key = _first_key(buf, head + 1)
        if key is None:
            return _MORE if not final else _Try("no")
        explicit = key in _EXPLICIT_KEYS
        if not explicit and not (key in _BARE_KEYS and self._line_start(buf, start)):
            return _Try("no")
        end = self._ends.end(buf, start)
        if end < 0:
            if not final:
                return _MORE
            # the answer ended inside the object: small models often drop its last braces
            closed = None if self._cut_off else _closed(buf[start:])
            calls = self._parse(closed, explicit=False) if closed is not None else None
            if calls:
                return _Try("call", len(buf), calls)
            self.malformed |= explicit
            return _Try("no")
        calls = self._parse(buf[start:end], explicit)
        return _Try("call", end, calls) if calls else _Try("no")

    def _parse(self, text: str, explicit: bool) -> list[Call] | None:
        try:
            value = json.loads(text)
        except ValueError:
            self.malformed |= explicit
            return None
        return calls_in(value, self.names)

    # -- values in a fence or after a tag ------------------------------------------------
    def _values(
        self, buf: str, pos: int, close: tuple[str, ...], final: bool, *, sep: str = ","
    ) -> tuple[str, int, list[tuple[int, int]]]:
        """JSON values from ``pos`` up to one of ``close`` (or, when final, the end).

        Returns (state, index after the closer, value spans); state is "ok", "more",
        "no" (something else stands there) or "open" (the end came inside a value)."""
        spans: list[tuple[int, int]] = []
        while True:
            while pos < len(buf) and (buf[pos].isspace() or buf[pos] in sep):
                pos += 1
            for closer in close:
                if buf.startswith(closer, pos):
                    return "ok", pos + len(closer), spans
            if pos >= len(buf) or any(_prefix_of(buf, pos, c) for c in close):
                if not final:
                    return "more", pos, spans
                return ("ok" if spans else "no"), len(buf), spans
            if buf[pos] not in "{[":
                return "no", pos, spans
            end = self._ends.end(buf, pos)
            if end < 0:
                return ("more" if not final else "open"), pos, spans
            spans.append((pos, end))
            pos = end

    def _calls_of(self, buf: str, spans: list[tuple[int, int]], explicit: bool) -> list[Call]:
        calls: list[Call] = []
        for s, e in spans:
            found = self._parse(buf[s:e], explicit)
            if not found:
                return []
            calls.extend(found)
        return calls

    def _fence(self, buf: str, start: int, final: bool) -> _Try:
        if self._in_code:
            self._in_code = False
            return _Try("no", skip=3)
        info = _FENCE_INFO.match(buf, start + 3)
        assert info is not None  # the pattern matches the empty string
        at = info.end()
        if at >= len(buf) and not final:
            return _MORE if at - start < 40 else _Try("no", skip=3)
        if info.group(1).lower() not in _FENCE_INFOS or (at < len(buf) and buf[at] not in "\n{["):
            self._in_code = True
            return _Try("no", skip=3)
        state, end, spans = self._values(buf, at, (_FENCE,), final)
        if state == "more":
            return _MORE
        calls = self._calls_of(buf, spans, explicit=False) if state == "ok" and spans else []
        if calls:
            return _Try("call", end, calls)
        self._in_code = True
        return _Try("no", skip=3)

    def _tag(self, buf: str, start: int, final: bool) -> _Try:
        for tag in _TAGS:
            if buf.startswith(tag, start):
                break
        else:
            if not final and any(_prefix_of(buf, start, t) for t in _TAGS):
                return _MORE
            return _Try("no")
        if tag == _TOOL_CALL_OPEN:
            closers: tuple[str, ...] = (_TOOL_CALL_CLOSE,)
            state, end, spans = self._values(buf, start + len(tag), closers, final)
        else:
            state, end, spans = self._values(buf, start + len(tag), _LLAMA_ENDS, final, sep=";")
            if state == "no" and spans:  # what follows the last value is not ours
                state, end = "ok", spans[-1][1]
        if state == "more":
            return _MORE
        self.malformed |= state == "open"
        calls = self._calls_of(buf, spans, explicit=True) if state == "ok" and spans else []
        if calls:
            return _Try("call", end, calls)
        return _Try("no", skip=len(tag))

    def _mistral(self, buf: str, pos: int, final: bool) -> _Try:
        """``[TOOL_CALLS]`` then a JSON list, or ``name[ARGS]{…}`` repeated."""
        no = _Try("no", skip=len(_MISTRAL))
        rest = buf[pos:].lstrip()
        if not rest:
            return _MORE if not final else no
        if rest[0] in "{[":
            at = len(buf) - len(rest)
            end = self._ends.end(buf, at)
            if end < 0:
                self.malformed |= final
                return _MORE if not final else no
            listed = self._parse(buf[at:end], explicit=True)
            return _Try("call", end, listed) if listed else no
        calls: list[Call] = []
        last = pos
        while True:
            named = _MISTRAL_NAME.match(buf, pos)
            if named is None:
                if not calls and not final and "{" not in buf[pos:] and len(buf) - pos < 200:
                    return _MORE
                break
            at = named.end()
            while at < len(buf) and buf[at].isspace():
                at += 1
            if at >= len(buf):
                return _MORE if not final else no
            if buf[at] != "{":
                break
            end = self._ends.end(buf, at)
            if end < 0:
                self.malformed |= final
                return _MORE if not final else no
            wrapped = f'{{"name": {json.dumps(named.group(1))}, "arguments": {buf[at:end]}}}'
            found = self._parse(wrapped, explicit=True)
            if not found:
                return no
            calls.extend(found)
            last = end
            if buf.startswith(_MISTRAL, end):
                pos = end + len(_MISTRAL)
                continue
            if not final and _prefix_of(buf, end, _MISTRAL):
                return _MORE
            break
        return _Try("call", last, calls) if calls else no


def _closed(text: str) -> str | None:
    """``text`` (a JSON value whose last brackets are missing) with them closed, or None
    unless every value in it is complete: a string, key or container cut short is a cut
    answer, and running it (a ``write_file`` with half its content) would do harm."""
    stack: list[str] = []
    in_str = escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and (not stack or stack.pop() != ch):
            return None
    tail = text.rstrip()
    if in_str or tail.endswith((",", ":", "{", "[")):
        return None
    return tail + "".join(reversed(stack))


def _find(buf: str, pos: int) -> int:
    match = _CANDIDATE.search(buf, pos)
    return match.start() if match else -1


def _prefix_of(buf: str, pos: int, tag: str) -> bool:
    """Whether the buffer ends, from ``pos``, in a proper start of ``tag``."""
    rest = buf[pos:]
    return len(rest) < len(tag) and tag.startswith(rest)


def _first_key(buf: str, pos: int) -> str | None:
    """The first key of the object whose body starts at ``pos``; "" when it has none
    (not a call); None when the text so far cannot tell."""
    match = _KEY.match(buf, pos)
    if match is not None:
        return match.group(1)
    rest = buf[pos:].lstrip()
    if not rest or (rest[0] == '"' and '"' not in rest[1:]):
        return None
    return ""


class WholeTextCalls:
    """Native mode's fallback: a message whose text is nothing but calls to declared
    tools becomes those calls.

    The text is held only while it can still be nothing but calls; the first visible word
    of prose releases everything held, raw, and later text passes straight through."""

    def __init__(self, names: Collection[str]) -> None:
        self._extractor = CallExtractor(names)
        self._raw: list[str] = []
        self.passthrough = False

    def feed(self, text: str) -> str:
        if self.passthrough:
            return text
        self._raw.append(text)
        if self._extractor.feed(text).strip():
            self.passthrough = True
            held, self._raw = "".join(self._raw), []
            return held
        return ""

    def release(self) -> str:
        """Give up holding: the raw text held so far, and later text passes through."""
        self.passthrough = True
        held, self._raw = "".join(self._raw), []
        return held

    def finish(self, *, accept: bool = True, cut_off: bool = False) -> tuple[str, list[Call]]:
        """(text still to show, calls): the calls when the whole text was calls (and
        ``accept``: false when the message also made native calls)."""
        if self.passthrough:
            return "", []
        visible = self._extractor.flush(cut_off=cut_off)
        raw, self._raw = "".join(self._raw), []
        if accept and self._extractor.calls and not visible.strip():
            return "", list(self._extractor.calls)
        return raw, []


def parse_text_calls(text: str, names: Collection[str] | None) -> tuple[str, list[Call]]:
    """(the prose, the calls) of a whole text (the streaming parser fed at once)."""
    extractor = CallExtractor(names)
    visible = extractor.feed(text) + extractor.flush()
    return visible, extractor.calls
