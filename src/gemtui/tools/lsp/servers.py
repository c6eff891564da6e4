"""Which language server serves a file: the ``[lsp.NAME]`` ones, then common ones on PATH.

A server is named by its command and the file endings it serves; the language id each
file is opened with comes from its ending. Servers found on PATH are the usual ones for
Python, TypeScript/JavaScript, Go and Rust; the first present for a language wins.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gemtui.config.settings import LspServerSettings

__all__ = ["LANGUAGE_IDS", "ServerGone", "ServerSpec", "language_id", "server_specs", "spec_for"]


class ServerGone(Exception):
    """The server exited (or never started): no answer will come."""


LANGUAGE_IDS: Mapping[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".java": "java",
    ".rb": "ruby",
    ".lua": "lua",
}
"""LSP language ids by file ending (what ``didOpen`` says a document is)."""

_COMMON: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("pyright", ("pyright-langserver", "--stdio"), ("python",)),
    ("pylsp", ("pylsp",), ("python",)),
    (
        "typescript",
        ("typescript-language-server", "--stdio"),
        ("typescript", "typescriptreact", "javascript", "javascriptreact"),
    ),
    ("gopls", ("gopls",), ("go",)),
    ("rust-analyzer", ("rust-analyzer",), ("rust",)),
)
"""(name, command, languages) of the servers looked for on PATH, preferred first."""


@dataclass(frozen=True)
class ServerSpec:
    """One language server: what to run and which file endings it serves."""

    name: str
    argv: tuple[str, ...]
    extensions: frozenset[str]
    init_options: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


def language_id(path: Path) -> str:
    """The LSP language id of ``path`` (``plaintext`` for an unknown ending)."""
    return LANGUAGE_IDS.get(path.suffix.lower(), "plaintext")


def _endings(languages: list[str] | tuple[str, ...], extensions: list[str]) -> frozenset[str]:
    out = {e.lower() if e.startswith(".") else f".{e.lower()}" for e in extensions}
    out |= {ending for ending, lang in LANGUAGE_IDS.items() if lang in languages}
    return frozenset(out)


def server_specs(
    configured: Mapping[str, LspServerSettings], *, find_on_path: bool
) -> list[ServerSpec]:
    """The configured servers in their order, then (when asked) one found on PATH for
    each language none of them serves."""
    specs = [
        ServerSpec(
            name,
            tuple(conf.command),
            _endings(conf.languages, conf.extensions),
            dict(conf.init_options),
        )
        for name, conf in configured.items()
    ]
    if not find_on_path:
        return specs
    served = {e for s in specs for e in s.extensions}
    for name, argv, languages in _COMMON:
        endings = _endings(languages, []) - served
        if not endings or shutil.which(argv[0]) is None:
            continue
        specs.append(ServerSpec(name, argv, endings))
        served |= endings
    return specs


def spec_for(specs: list[ServerSpec], path: Path) -> ServerSpec | None:
    """The first server serving ``path``'s ending, or None."""
    ending = path.suffix.lower()
    return next((s for s in specs if ending in s.extensions), None)
