"""The one redactor: what counts as a secret, the forms it is masked in, and text in pieces."""

from __future__ import annotations

import io
import json
import logging
from itertools import pairwise
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemtui.redact import (
    MASK,
    RedactingFormatter,
    RedactingWriter,
    Redactor,
    StreamRedactor,
    redact,
    redact_data,
    register,
)

LONG = "AIzaSy-unit-0123456789abcdefgh"


@pytest.mark.parametrize("secret", ["q", "ab", "k3y", "abcd", "abcdefg", "abcdefgh", LONG])
def test_a_registered_secret_is_masked_whatever_its_length(secret: str) -> None:
    register(secret)
    for text in (f"key {secret}", f'{{"k": "{secret}"}}', f"?key={secret}&x=1", f"{secret}."):
        assert secret not in redact(text).replace(MASK, ""), text
        assert MASK in redact(text)


def test_a_short_secret_is_masked_as_a_token_not_inside_other_words() -> None:
    register("x")
    assert redact("box x = 1, max(x)") == f"box {MASK} = 1, max({MASK})"
    register("ab")
    assert redact("about abc ab-1 xab -ab ab- _ab") == f"about abc ab-1 xab -{MASK} {MASK}- _{MASK}"


def test_a_short_secret_joined_into_a_word_by_hyphens_or_underscores_is_left() -> None:
    """``ls -l`` output with a one-letter placeholder key: the permissions stay readable."""
    register("x")
    listing = "drwxr-xr-x 2 me me 4096 x-ray max_x x_y"
    assert redact(listing) == listing
    assert redact("key=x, key-x") == f"key={MASK}, key-x"
    assert redact("--token x; -x") == f"--token {MASK}; -{MASK}"


def test_a_long_secret_is_masked_even_glued_to_other_text() -> None:
    register(LONG)
    assert redact(f"key{LONG}tail") == f"key{MASK}tail"


def test_json_url_and_repr_forms_are_masked() -> None:
    secret = 'sk-"quo/te\\back+plus é'
    register(secret)
    for form in (
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        quote(secret, safe=""),
        quote_plus(secret),
        repr(secret)[1:-1],
    ):
        assert redact(f"<{form}>") == f"<{MASK}>", form


def test_key_variables_count_at_any_length_lookalikes_from_eight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "zz")  # gemtui's own key variable: any length
    monkeypatch.setenv("NO_PASSWORD", "1")  # only looks secret, and is too short to tell
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_0123456789")
    assert redact("zz 1 ghp_0123456789") == f"{MASK} 1 {MASK}"


def test_json_stays_valid_whatever_the_secret_is() -> None:
    for secret in ("null", "true", "1", "text"):
        register(secret)
    doc = {"text": "a null b", "n": None, "ok": True, "count": 1, "list": ["true", "x"]}
    masked = json.loads(json.dumps(redact_data(doc)))
    assert masked == {
        "text": f"a {MASK} b",
        "n": None,
        "ok": True,
        "count": 1,
        "list": [MASK, "x"],
    }


def _streamed(pieces: list[str]) -> str:
    s = StreamRedactor()
    return "".join(s.feed(p) for p in pieces) + s.finish()


def test_a_secret_split_between_pieces_is_masked_at_every_split() -> None:
    register(LONG)
    register("ab")
    text = f"say {LONG} and ab, not abc; again {LONG}"
    for i in range(len(text) + 1):
        for j in range(i, len(text) + 1, 3):
            assert _streamed([text[:i], text[i:j], text[j:]]) == redact(text), (i, j)


_SECRETS = ["AIzaSyPROP0123456789", "q9", "x/y+z=="]


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(
        st.one_of(
            st.sampled_from([*_SECRETS, " ", ",", "a", "q", "AIza", "x/", "-", "_"]), st.text()
        ),
        max_size=30,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_streaming_masks_exactly_what_masking_the_whole_text_does(
    words: list[str], cuts: list[int]
) -> None:
    for s in _SECRETS:
        register(s)
    text = "".join(words)
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    pieces = [text[a:b] for a, b in pairwise(bounds)]
    out = _streamed(pieces)
    assert out == redact(text)
    assert "AIzaSyPROP0123456789" not in out


def test_a_writer_holds_a_possible_secret_across_a_flush() -> None:
    register(LONG)
    raw = io.StringIO()
    w = RedactingWriter(raw)
    w.write("key: " + LONG[:10])
    w.flush()
    assert raw.getvalue() == "key: "
    w.write(LONG[10:] + "\n")
    assert raw.getvalue() == f"key: {MASK}\n"
    w.write("tail AIza")
    w.finish()
    assert raw.getvalue().endswith("tail AIza")


def test_the_log_formatter_masks_message_arguments_and_traceback(tmp_path: Path) -> None:
    register(LONG)
    path = tmp_path / "x.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(RedactingFormatter("%(levelname)s %(message)s"))
    log = logging.getLogger("gemtui.test_redact")
    log.addHandler(handler)
    try:
        log.error("key %s in an argument", LONG)
        try:
            raise RuntimeError(f"boom {LONG}")
        except RuntimeError:
            log.exception("failed with %r", {"key": LONG})
    finally:
        log.removeHandler(handler)
        handler.close()
    data = path.read_text()
    assert LONG not in data
    assert data.count(MASK) >= 3
    assert "Traceback" in data


def test_an_empty_redactor_changes_nothing() -> None:
    assert Redactor([])("anything " + LONG) == "anything " + LONG
    assert not Redactor([""])


def test_credentials_are_told_by_their_names() -> None:
    from gemtui.redact import register_header, register_variable

    register_variable("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_0123456789")
    register_variable("DEBUG", "verbose-mode-on")  # not a secret's name
    register_variable("SHORT_TOKEN", "abc")  # a look-alike counts from 8 characters
    register_header("Authorization", "Bearer tok42")
    register_header("Accept", "application/json")
    assert redact("ghp_0123456789 verbose-mode-on abc tok42 application/json") == (
        f"{MASK} verbose-mode-on abc {MASK} application/json"
    )
    assert redact("Authorization: Bearer tok42") == f"Authorization: {MASK}"


def test_punctuation_and_blank_values_are_not_secrets_a_padded_key_is() -> None:
    for value in ("-", " ", "\n", "..."):
        register(value)
    register("  padded-key-0123456789\n")
    assert redact("a - b ... c\n") == "a - b ... c\n"
    assert redact("key=padded-key-0123456789;") == f"key={MASK};"


def test_a_writer_closed_by_the_collector_inside_current_does_not_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hang behind a CI run that never ended: a ``RedactingWriter`` left in a
    reference cycle (an earlier in-process run's stderr) is closed by the garbage
    collector wherever a collection starts, here while ``current()`` reads the
    environment; its close masks the tail it held back, entering ``current()`` again."""
    import os
    import threading

    from gemtui import redact

    writer = redact.RedactingWriter(io.StringIO())
    writer.write("the end of an answer, held back: sk-")  # a tail that may start a secret
    closed: list[str] = []

    class CollectingEnviron(dict[str, str]):
        def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
            if not closed:  # the collection starts here, once, and finalises the writer
                closed.append("closed")
                writer.close()
            return super().get(key, default)

    monkeypatch.setattr(os, "environ", CollectingEnviron(os.environ))
    redact.forget_registered()
    built: list[object] = []
    thread = threading.Thread(target=lambda: built.append(redact.current()), daemon=True)
    thread.start()
    thread.join(10)
    assert built, "current() waited for ever on its own lock"
    assert closed
    assert writer.stream.getvalue().endswith("sk-")  # the held tail was released
