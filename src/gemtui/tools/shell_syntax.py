"""Shell text as bash will run it: every simple command, its real name, and what stays hidden.

Policy, the approval preview and the redirection warning all read a command through this
module, so they cannot disagree. It parses with tree-sitter's bash grammar (the one Gemini
CLI uses) rather than by hand: hand scanners lost commands behind comments, ANSI-C quotes
and expansion operators.

From the tree it collects each simple command wherever it stands (lists, pipelines,
subshells, groups, substitutions, here-documents, function bodies, compound statements,
the string of ``bash -c`` / ``eval`` / ``trap`` parsed again), with its name after quote
removal and basename (``/bin/rm``, ``\\rm``, ``r''m`` → ``rm``) and seen through wrappers
(``command``, ``env``, ``nice``, ``timeout``, ``sudo``, ``xargs``, ``find -exec`` …).
Anything it cannot see through — a parse error, a name or wrapper argument that comes from
an expansion, expansion operators that evaluate text (``${x@P}``, ``${!x}``, ``${x:=…}``),
arithmetic over variables, ``source``, ``alias``, a shell reading a script — is reported
in ``hidden``: callers treat it as the strictest case.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

from gemtui.tools.interpreter_prefix import interpreter_prefix

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = [
    "ShellAnalysis",
    "SimpleCommand",
    "analyze",
    "has_redirection",
    "root_prefix",
    "rule_prefixes",
]

MULTI_COMMAND_TOOLS = frozenset(
    {"git", "npm", "pnpm", "yarn", "cargo", "docker", "kubectl", "pip", "pip3", "uv",
     "make", "go", "gh", "poetry", "bun"}
)  # fmt: skip
"""Commands whose second word picks the real action (``git push`` vs ``git status``)."""

SAFE_ASSIGNMENTS = frozenset(
    {"CI", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "COLUMNS",
     "LINES", "LANG", "LANGUAGE", "TZ", "RUST_BACKTRACE", "RUST_LOG", "PYTHONUNBUFFERED",
     "PYTHONDONTWRITEBYTECODE", "NODE_ENV", "DEBUG", "VERBOSE"}
)  # fmt: skip
"""Variables a command may be given without losing its allow rule; any other (``PATH``,
``GIT_CONFIG_*``, ``LD_PRELOAD``, ``PAGER``…) can change what the allowed program runs."""

_SAFE_PREFIXES = ("LC_",)

DANGEROUS_ASSIGNMENTS = frozenset(
    {"PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS",
     "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "GLOBIGNORE", "CDPATH", "BASH_LOADABLES_PATH"}
)  # fmt: skip
"""Variables that change which program a later word runs: setting one hides the command."""

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash", "posh", "yash"})
"""Programs that run shell text: seen through with ``-c``, hidden when reading a script."""

HIDING_COMMANDS = frozenset(
    {"source", ".", "alias", "hash", "enable", "bind", "complete", "compgen", "fc",
     "mapfile", "readarray", "let", "coproc", "busybox", "toybox", "watch", "script",
     "su", "runuser", "pkexec", "chroot", "flock", "taskset", "chrt", "ionice", "unshare",
     "nsenter", "strace", "ltrace", "valgrind", "gdb", "fakeroot", "firejail", "unbuffer",
     "systemd-run", "parallel", "sudoedit", "caffeinate", "catchsegv", "xvfb-run", "sg",
     "newgrp", "dbus-launch", "proot", "run-parts", "expect", "tclsh"}
)  # fmt: skip
"""Builtins and programs that run code gemtui cannot read from the text (a file, a
callback, another word list); a command using one is hidden."""

_RESERVED = frozenset(
    {"if", "then", "elif", "else", "fi", "case", "esac", "for", "select", "while", "until",
     "do", "done", "in", "function", "{", "}", "!", "[[", "]]", "coproc"}
)  # fmt: skip
_ARITH_TEST_OPS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v"})
_UNSAFE_EXPANSION_OPS = frozenset({"=", ":=", "@", "!"})
_MAX_DEPTH = 6
_MAX_TREE_DEPTH = 100
"""Deeper syntax trees are hidden outright (real commands stay far below)."""
_MAX_SCANNED = 32 * 1024
"""Longer text is hidden outright: the checks for what the grammar misread look nodes
up from the root, so their cost grows with length times depth."""

_STRUCTURAL = frozenset(
    {"program", "list", "pipeline", "subshell", "compound_statement", "redirected_statement",
     "negated_command", "if_statement", "elif_clause", "else_clause", "for_statement",
     "while_statement", "case_statement", "case_item", "do_group", "function_definition",
     "command_name", "word", "string", "string_content", "raw_string", "ansi_c_string",
     "translated_string", "concatenation", "simple_expansion", "command_substitution",
     "process_substitution", "file_redirect", "heredoc_redirect", "heredoc_body",
     "heredoc_content", "heredoc_start", "heredoc_end", "herestring_redirect",
     "file_descriptor", "number", "comment", "array", "variable_assignments",
     "variable_name", "special_variable_name", "test_operator", "extglob_pattern", "regex",
     "brace_expression", "binary_expression", "unary_expression", "ternary_expression",
     "parenthesized_expression", "postfix_expression"}
)  # fmt: skip
"""Node types whose meaning the walker models; any other is reported as hidden."""

_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_NAMES_EVERY_ARG = frozenset({"read", "unset", "wait", "getopts"})
"""Builtins whose arguments may name variables: bash evaluates a name's subscript
(``read 'a[$(cmd)]'``, ``a[i]`` with ``i='b[$(cmd)]'``) as arithmetic, which runs code."""
_EVALUATED_NAME = re.compile(r"\[(?![0-9]*\])")
_BRACE = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_GLOB = re.compile(r"[*?]|\[.*\]")


@dataclass(frozen=True)
class SimpleCommand:
    """One command bash will run: its words after quote removal, name normalised."""

    words: tuple[str, ...]
    """argv; ``words[0]`` is the basename of the program; a non-literal word is its source."""
    literal: tuple[bool, ...]
    """Whether each word has one known value (no expansion, glob or brace)."""
    assignments: tuple[str, ...] = ()
    """Names of the variables set for this command (``CI=1 npm test`` → ``CI``)."""
    redirection: bool = False
    via: tuple[str, ...] = ()
    """Wrappers it was seen through (``nice``, ``timeout``…), outermost first."""

    @property
    def name(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def text(self) -> str:
        """The command as a rule or a message shows it (assignments and wrappers left out)."""
        return " ".join(
            shlex.quote(w) if lit else w for w, lit in zip(self.words, self.literal, strict=True)
        )


@dataclass(frozen=True)
class ShellAnalysis:
    """What a command line will run, and why parts of it may be out of sight."""

    commands: tuple[SimpleCommand, ...] = ()
    hidden: tuple[str, ...] = ()
    """Why the text is not fully visible; empty when every command is known."""
    redirection: bool = False
    unsafe_assignments: tuple[str, ...] = ()
    """Variables set outside the safe list, alone, before a command or through ``env``."""

    @property
    def visible(self) -> bool:
        return not self.hidden


def _safe_name(name: str) -> bool:
    return name in SAFE_ASSIGNMENTS or name.startswith(_SAFE_PREFIXES)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    """The bash parser, built on first use so start-up never pays for it."""
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


# -- words --------------------------------------------------------------------------------

_C_ESCAPES = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_C_ESCAPE = re.compile(
    r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})"
    r"|U([0-9a-fA-F]{1,8})|(.))",
    re.S,
)


def _ansi_c(body: str) -> str | None:
    """The value of ``$'…'``, or None when it uses an escape not modelled (``\\c``…)."""
    failed = False

    def one(m: re.Match[str]) -> str:
        nonlocal failed
        simple, octal, hex2, u4, u8, _other = m.groups()
        if simple:
            return _C_ESCAPES[simple]
        try:
            if octal:
                return chr(int(octal, 8) & 0xFF)
            if hex2 or u4 or u8:
                return chr(int(hex2 or u4 or u8, 16))
        except (ValueError, OverflowError):
            pass
        failed = True
        return ""

    value = _C_ESCAPE.sub(one, body)
    return None if failed or "\x00" in value else value


def _unquoted_word(text: str) -> tuple[str, str]:
    """Quote removal of a bare word: (value, the text outside backslash escapes)."""
    out: list[str] = []
    bare: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
                bare.append("_")
            i += 2
            continue
        out.append(c)
        bare.append(c)
        i += 1
    return "".join(out), "".join(bare)


def _double_quoted(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _word_value(node: Node) -> str | None:
    """The single value bash gives a word, or None when it depends on anything at run time."""
    parts: list[str] = []
    bare: list[str] = []
    if not _collect(node, parts, bare):
        return None
    unquoted = "".join(bare)
    if _GLOB.search(unquoted) or _BRACE.search(unquoted) or unquoted.startswith("~"):
        return None
    return "".join(parts)


def _collect(node: Node, parts: list[str], bare: list[str]) -> bool:
    text = _text(node)
    kind = node.type
    if kind in ("concatenation", "command_name"):
        return all(_collect(c, parts, bare) for c in node.children)
    if kind in ("word", "number", "variable_name"):
        value, unquoted = _unquoted_word(text)
        parts.append(value)
        bare.append(unquoted)
        return True
    if kind == "raw_string":
        parts.append(text[1:-1])
        bare.append("_")
        return True
    if kind == "ansi_c_string":
        decoded = _ansi_c(text[2:-1])
        if decoded is None:
            return False
        parts.append(decoded)
        bare.append("_")
        return True
    if kind in ("string", "translated_string"):
        inner = node.children[-1] if kind == "translated_string" else node
        for child in inner.children:
            if child.type in ('"', "$"):
                continue
            if child.type != "string_content":
                return False
            parts.append(_double_quoted(_text(child)))
        bare.append("_")
        return True
    return False


_BARE = frozenset(
    {"word", "number", "extglob_pattern", "regex", "test_operator", "variable_name",
     "special_variable_name", "file_descriptor"}
)  # fmt: skip


def _bare_newline(text: str) -> bool:
    """Whether an unquoted token holds a newline that is not a backslash-newline."""
    start = 0
    while (i := text.find("\n", start)) != -1:
        start = i + 1
        run = 0  # backslashes just before it, counted in place (slicing made this quadratic)
        while run < i and text[i - run - 1] == "\\":
            run += 1
        if run % 2 == 0:
            return True
    return False


def _late_words(redirect: Node) -> list[Node]:
    """The words a redirect node holds beyond its target, in order (see _late_arguments)."""
    if redirect.type == "file_redirect":
        return redirect.children_by_field_name("destination")[1:]
    if redirect.type != "heredoc_redirect":
        return []
    late: list[Node] = []
    for i, child in enumerate(redirect.children):
        if redirect.field_name_for_child(i) == "argument":
            late.append(child)
        elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            late.extend(_late_words(child))
    return late


def _split_by_newline(node: Node) -> bool:
    """Whether a bare line break stands between two children of a command or word."""
    children = node.children
    source = node.text or b""
    base = node.start_byte
    for left, right in pairwise(children):
        gap = source[left.end_byte - base : right.start_byte - base]
        if b"\n" in gap and _bare_newline(gap.decode("utf-8", "replace")):
            return True
    return False


def _snippet(node: Node) -> str:
    """A node's text short enough for a message."""
    return _short(_text(node))


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


# -- the walk ------------------------------------------------------------------------------


@dataclass
class _Word:
    value: str | None
    source: str

    @property
    def literal(self) -> bool:
        return self.value is not None

    @property
    def shown(self) -> str:
        return self.value if self.value is not None else self.source


class _Walker:
    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.commands: list[SimpleCommand] = []
        self.hidden: list[str] = []
        self.unsafe: list[str] = []
        self.redirection = False
        self._redirected = 0
        self._late_words: dict[int, list[Node]] = {}

    def result(self) -> ShellAnalysis:
        return ShellAnalysis(
            tuple(self.commands), tuple(self.hidden), self.redirection, tuple(self.unsafe)
        )

    def hide(self, reason: str) -> None:
        if reason not in self.hidden:
            self.hidden.append(reason)

    # nodes

    def visit(self, node: Node) -> None:
        kind = node.type
        if node.is_missing or kind == "ERROR":
            self.hide("the command does not parse as bash")
        elif not node.is_named:
            return
        elif kind == "command":
            self._command(node)
        elif kind in ("declaration_command", "unset_command"):
            self._declaration(node)
        elif kind == "variable_assignment":
            self._assignment(node)
        elif kind == "expansion":
            self._expansion(node)
        elif kind == "subscript":
            self._subscript(node)
        elif kind in ("arithmetic_expansion", "c_style_for_statement") or (
            kind == "compound_statement" and node.children and node.children[0].type == "(("
        ):
            self._arithmetic(node)
        elif kind == "test_command":
            self._test(node)
        elif kind == "redirected_statement":
            self.redirection = True
            self._late_arguments(node)
            self._redirected += 1
            try:
                self._children(node)
            finally:
                self._redirected -= 1
            return
        elif kind in _REDIRECTS:
            self.redirection = True
        elif kind not in _STRUCTURAL:
            self.hide(f"bash construct {kind!r} is not modelled")
        elif kind in ("simple_expansion", "concatenation") and _split_by_newline(node):
            # "$\\⏎⏎cmd": bash reads a lone $, a line break, then cmd; the grammar reads
            # one expansion of a variable named cmd
            self.hide("a line break inside a word")
        elif kind in _BARE and _bare_newline(_text(node)):
            # the grammar can glue the next line onto a word ("ok\n\\rm" as one word)
            self.hide("a line break inside a word")
        if kind not in ("command", "declaration_command", "unset_command"):
            self._children(node)

    def _late_arguments(self, node: Node) -> None:
        """Words after a redirection's target: the grammar files them under the redirect,
        bash gives them to the command (``command >/dev/null rm -f f`` runs ``rm``)."""
        late = [extra for child in node.children for extra in _late_words(child)]
        if not late:
            return
        body = node.child_by_field_name("body")
        if body is None or body.type != "command":
            self.hide("words follow a redirection after a compound command")
        else:
            self._late_words[body.id] = late

    def _children(self, node: Node) -> None:
        for child in node.children:
            self.visit(child)

    def _command(self, node: Node) -> None:
        assignments: list[str] = []
        words: list[_Word] = []
        redirected = self._redirected > 0
        for i, child in enumerate(node.children):
            role = node.field_name_for_child(i)
            if child.type == "variable_assignment":
                assignments.append(self._assigned_name(child))
            elif child.type in _REDIRECTS:
                redirected = True
                self.redirection = True
            elif role in ("name", "argument"):
                words.append(_Word(_word_value(child), _text(child)))
            self.visit_inner(child)
        if _split_by_newline(node):
            # "git status⏎\\⏎cmd": bash ends the command at the first line break, the
            # grammar reads the continuation after it as joining the next line's words
            self.hide("a line break between the words of one command")
        words.extend(_Word(_word_value(w), _text(w)) for w in self._late_words.pop(node.id, []))
        name_node = node.child_by_field_name("name")
        if name_node is not None and _text(name_node) in _RESERVED:
            # bash never runs a bare reserved word as a command: the grammar misread a
            # compound statement (``! if …; fi`` parses as commands named if, then, fi)
            self.hide(f"the grammar misread the reserved word {_text(name_node)!r}")
        if not words:
            self._note_assignments(assignments)
            return
        self._note_assignments(assignments)
        self._run(words, tuple(assignments), redirected, ())

    def visit_inner(self, child: Node) -> None:
        """Substitutions and expansions inside a command's words and assignments."""
        if child.type == "variable_assignment":
            self._assignment(child, record=False)
        elif child.is_named:
            self.visit(child)

    def _declaration(self, node: Node) -> None:
        words = [_Word(_text(node.children[0]), _text(node.children[0]))]
        assigned: list[str] = []
        for child in node.children[1:]:
            if child.type == "variable_assignment":
                assigned.append(self._assigned_name(child))
                words.append(_Word(None, _text(child)))
                self._assignment(child, record=False)
            else:
                words.append(_Word(_word_value(child), _text(child)))
                self.visit(child)
        flags = "".join(w.value or "" for w in words[1:] if (w.value or "").startswith("-"))
        if "i" in flags or "n" in flags:
            self.hide(
                f"{_short(words[0].shown)} -i/-n evaluates values as arithmetic or references"
            )
        for child in node.children[1:]:
            if self._declared_evaluated(child):
                self.hide(f"{_short(_text(child))!r} names a subscript or value bash evaluates")
                break
        for name in assigned:
            if name in DANGEROUS_ASSIGNMENTS:
                self.hide(f"it sets {name}, which changes what later commands run")
        self._emit(words, (), self._redirected > 0, ())

    @staticmethod
    def _declared_evaluated(child: Node) -> bool:
        """Whether a declaration argument is text bash parses again: a quoted ``'a[…]=1'``
        (its subscript is arithmetic), a name from an expansion, or a value that may be a
        compound array assignment (``declare -a x='($(cmd))'``, ``declare x="$v"``)."""
        if child.type == "variable_assignment":
            value = child.child_by_field_name("value")
            if value is None or value.type == "array":
                return False
            literal = _word_value(value)
            if literal is not None:
                return literal.lstrip().startswith("(")
            return _text(value).lstrip("\"'").startswith(("$", "`"))
        if not child.is_named or child.type in ("comment", *_REDIRECTS):
            return False
        return _evaluated_name(_word_value(child))

    def _assigned_name(self, node: Node) -> str:
        name = node.child_by_field_name("name")
        return _text(name) if name is not None and name.type == "variable_name" else _text(node)

    def _assignment(self, node: Node, record: bool = True) -> None:
        if record:
            self._note_assignments([self._assigned_name(node)])
        self._children(node)

    def _note_assignments(self, names: list[str]) -> None:
        for name in names:
            if name in DANGEROUS_ASSIGNMENTS or name.startswith(("BASH_FUNC_", "DYLD_")):
                self.hide(f"it sets {name}, which changes what later commands run")
            if not name.isidentifier():
                self.hide(f"assignment to {_short(name)!r} evaluates a subscript")
            if not _safe_name(name) and name not in self.unsafe:
                self.unsafe.append(name)

    def _expansion(self, node: Node) -> None:
        ops = [_text(c) for c in node.children if not c.is_named and c.type not in ("${", "}")]
        unsafe = [op for op in ops if op in _UNSAFE_EXPANSION_OPS]
        if unsafe:
            where = _snippet(node)
            self.hide(f"the expansion {where!r} evaluates or assigns text ({unsafe[0]})")
        if ":" in ops:
            after = node.children[[c.type for c in node.children].index(":") :]
            if any(c.is_named and c.type != "number" for c in after):
                where = _snippet(node)
                self.hide(f"the substring offsets in {where!r} are evaluated as arithmetic")

    def _subscript(self, node: Node) -> None:
        index = node.child_by_field_name("index")
        if index is not None and not (index.type == "number" or _text(index) in ("@", "*")):
            self.hide(f"the subscript in {_snippet(node)!r} is evaluated as arithmetic")

    def _arithmetic(self, node: Node) -> None:
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            named = child.type in ("variable_name", "word", "simple_expansion", "expansion")
            if named and not (child.type == "word" and _text(child).isdigit()):
                self.hide(f"{_snippet(node)!r} evaluates variables as arithmetic")
                return
            stack.extend(child.named_children)

    def _test(self, node: Node) -> None:
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type == "test_operator" and _text(child) in _ARITH_TEST_OPS:
                self.hide(f"{_snippet(node)!r} evaluates its operands as arithmetic")
                return
            stack.extend(child.named_children)

    # commands and wrappers

    def _run(
        self,
        words: list[_Word],
        assignments: tuple[str, ...],
        redirected: bool,
        via: tuple[str, ...],
    ) -> None:
        """Record ``words`` as a command, seeing through wrappers and nested shell text."""
        if not words:
            return
        head = words[0]
        if head.value is None:
            self.hide(f"the command name {_short(head.source)!r} comes from an expansion")
            return
        name = os.path.basename(head.value)
        if not name or head.value.endswith("/"):
            self.hide(f"{_short(head.source)!r} is not a command name gemtui can read")
            return
        words = [_Word(name, head.source), *words[1:]]
        if (named := _variable_names(words)) is not None:
            self.hide(f"{name} sets or tests {_short(named)!r}, whose subscript bash evaluates")
        if name in HIDING_COMMANDS:
            self.hide(f"{name} runs code that is not in the command text")
        if name in _TRANSPARENT:
            inner, env = _TRANSPARENT[name](words)
            if inner is None:
                self.hide(f"the arguments of {name} could not be read")
            elif inner:
                self._note_assignments(env)
                self._run(inner, assignments + tuple(env), redirected, (*via, name))
                return
        self._emit(words, assignments, redirected, via)
        if name in _OUTER:
            inner = _OUTER[name](words)
            if inner is None:
                self.hide(f"the command that {name} runs could not be read")
            elif inner:
                self._run(inner, (), redirected, (*via, name))
        elif name == "find":
            for inner in _find_exec(words):
                if inner is None:
                    self.hide("the command that find -exec runs could not be read")
                else:
                    self._run(inner, (), redirected, (*via, name))
        elif name in SHELLS:
            self._nested(_shell_string(words), f"{name} without -c runs a script or stdin")
        elif name == "eval":
            self._nested(_joined(words[1:]), "eval runs text that comes from an expansion")
        elif name == "trap":
            self._nested(_trap_action(words), "trap runs text that comes from an expansion")

    def _emit(
        self,
        words: list[_Word],
        assignments: tuple[str, ...],
        redirected: bool,
        via: tuple[str, ...],
    ) -> None:
        self.commands.append(
            SimpleCommand(
                words=tuple(w.shown for w in words),
                literal=tuple(w.literal for w in words),
                assignments=assignments,
                redirection=redirected,
                via=via,
            )
        )

    def _nested(self, text: str | None, hidden_reason: str) -> None:
        if text is None:
            self.hide(hidden_reason)
            return
        if self.depth >= _MAX_DEPTH:
            self.hide("shell text nested too deeply")
            return
        inner = _analyze(text, self.depth + 1)
        self.commands.extend(inner.commands)
        for reason in inner.hidden:
            self.hide(reason)
        self.redirection |= inner.redirection
        self._note_assignments(list(inner.unsafe_assignments))


def _evaluated_name(value: str | None) -> bool:
    """Whether a variable name is unknown or has a subscript other than a plain number."""
    return value is None or bool(_EVALUATED_NAME.search(value))


def _variable_names(words: list[_Word]) -> str | None:
    """The first word a builtin takes as a variable name that bash would evaluate, if any.

    ``printf -v NAME``, ``read NAME…``, ``unset``, ``wait -p``, ``getopts`` and
    ``test -v``/``-R`` assign or look up NAME; a subscript in it (or in a variable it
    names) is arithmetic, and arithmetic on text runs its command substitutions.
    """
    name, args = words[0].value, words[1:]
    candidates: list[_Word] = []
    if name == "printf":
        for i, w in enumerate(args):
            if not (w.shown.startswith("-v") or w.source.lstrip("\"'").startswith("-v")):
                continue
            if w.value == "-v":
                candidates.extend(args[i + 1 : i + 2])
            else:  # -vNAME, or a word only partly known (-va[$'\x24'"(cmd)"])
                candidates.append(_Word(w.value and w.value[2:], w.source))
    elif name in _NAMES_EVERY_ARG or (
        name in ("test", "[") and any(w.value in ("-v", "-R") for w in args)
    ):
        candidates = args
    for w in candidates:
        if _evaluated_name(w.value):
            return w.shown
    return None


# -- wrapper grammars --------------------------------------------------------------------
# Each takes the words (name first) and returns the inner command's words: [] when there
# is none, None when the options cannot be read with certainty.

_Unwrap = tuple[list[_Word] | None, list[str]]


def _options(
    words: list[_Word],
    with_arg: frozenset[str],
    flags: frozenset[str],
    *,
    long_with_arg: frozenset[str] = frozenset(),
    clusters: bool = True,
) -> list[_Word] | None:
    """The words after a wrapper's options, or None when an option is unknown or unread."""
    i = 1
    while i < len(words):
        w = words[i]
        if w.value is None:
            return None
        v = w.value
        if v == "--":
            return words[i + 1 :]
        if not v.startswith("-") or v == "-":
            return words[i:]
        if v.startswith("--"):
            key = v.split("=", 1)[0]
            if key in long_with_arg:
                i += 1 if "=" in v else 2
                continue
            if key in flags:
                i += 1
                continue
            return None
        if v in with_arg:
            i += 2
            continue
        if v in flags:
            i += 1
            continue
        if clusters and len(v) > 2:
            letters = [f"-{c}" for c in v[1:]]
            if letters[0] in with_arg:  # value attached: -n5, -oL
                i += 1
                continue
            if all(f in flags for f in letters[:-1]) and letters[-1] in with_arg | flags:
                i += 2 if letters[-1] in with_arg else 1
                continue
        return None
    return []


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


def _unwrap_command(words: list[_Word]) -> _Unwrap:
    return _options(words, _f(), _f("-p", "-v", "-V")), []


def _unwrap_plain(words: list[_Word]) -> _Unwrap:
    rest = words[1:]
    if rest and rest[0].value == "--":
        rest = rest[1:]
    return rest, []


def _unwrap_exec(words: list[_Word]) -> _Unwrap:
    return _options(words, _f("-a"), _f("-c", "-l")), []


def _unwrap_time(words: list[_Word]) -> _Unwrap:
    return _options(
        words,
        _f("-f", "-o"),
        _f("-p", "-a", "-v", "-q", "--append", "--verbose", "--quiet", "--portability"),
        long_with_arg=_f("--format", "--output"),
    ), []


def _unwrap_nice(words: list[_Word]) -> _Unwrap:
    rest = words[1:]
    if rest and rest[0].value is not None and re.fullmatch(r"-\d+", rest[0].value):
        rest = rest[1:]
        return _options([words[0], *rest], _f("-n"), _f()), []
    return _options(words, _f("-n"), _f(), long_with_arg=_f("--adjustment")), []


def _unwrap_timeout(words: list[_Word]) -> _Unwrap:
    rest = _options(
        words,
        _f("-k", "-s"),
        _f("-v", "--verbose", "--preserve-status", "--foreground"),
        long_with_arg=_f("--kill-after", "--signal"),
    )
    if rest is None or not rest:
        return rest, []
    return rest[1:], []  # the duration


def _unwrap_stdbuf(words: list[_Word]) -> _Unwrap:
    return _options(
        words, _f("-i", "-o", "-e"), _f(), long_with_arg=_f("--input", "--output", "--error")
    ), []


def _unwrap_setsid(words: list[_Word]) -> _Unwrap:
    return _options(words, _f(), _f("-c", "-f", "-w", "--ctty", "--fork", "--wait")), []


def _unwrap_env(words: list[_Word]) -> _Unwrap:
    rest = _options(
        words,
        _f("-u", "-C"),
        _f("-i", "-0", "-v", "--ignore-environment", "--null", "--debug"),
        long_with_arg=_f("--unset", "--chdir"),
    )
    if rest is None:
        return None, []
    env: list[str] = []
    while rest and rest[0].value is not None and re.match(r"[^=\s]+=", rest[0].value):
        env.append(rest[0].value.split("=", 1)[0])
        rest = rest[1:]
    if rest and rest[0].value is None:
        return None, env
    return rest, env


_TRANSPARENT = {
    "command": _unwrap_command,
    "builtin": _unwrap_plain,
    "nohup": _unwrap_plain,
    "exec": _unwrap_exec,
    "time": _unwrap_time,
    "nice": _unwrap_nice,
    "timeout": _unwrap_timeout,
    "stdbuf": _unwrap_stdbuf,
    "setsid": _unwrap_setsid,
    "env": _unwrap_env,
}
"""Wrappers that only change how a program runs: a rule for the program covers them."""


def _unwrap_xargs(words: list[_Word]) -> list[_Word] | None:
    replace = ("-I", "-i", "--replace")
    if any(w.value is not None and w.value.startswith(replace) for w in words[1:]):
        return None  # the replacement string can rewrite any word, the name included
    rest = _options(
        words,
        _f("-a", "-d", "-E", "-L", "-n", "-P", "-s"),
        _f("-0", "-p", "-r", "-t", "-x", "-e", "-l", "--null", "--interactive", "--verbose",
           "--no-run-if-empty", "--exit", "--open-tty", "--show-limits"),
        long_with_arg=_f("--arg-file", "--delimiter", "--eof", "--max-lines", "--max-args",
                         "--max-procs", "--max-chars", "--process-slot-var"),
    )  # fmt: skip
    if rest == []:
        return [_Word("echo", "echo")]
    return rest


def _unwrap_sudo(words: list[_Word]) -> list[_Word] | None:
    if any(w.value in ("-s", "-i", "-e", "--shell", "--login", "--edit") for w in words[1:]):
        return None  # runs through the target user's shell, or edits files
    return _options(
        words,
        _f("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R"),
        _f("-A", "-b", "-E", "-H", "-k", "-K", "-n", "-P", "-S", "-B", "-N",
           "--askpass", "--background", "--non-interactive", "--preserve-env", "--stdin",
           "--reset-timestamp", "--remove-timestamp", "--set-home", "--bell"),
        long_with_arg=_f("--user", "--group", "--close-from", "--chdir", "--host",
                         "--prompt", "--role", "--type", "--command-timeout", "--other-user",
                         "--chroot"),
    )  # fmt: skip


def _unwrap_doas(words: list[_Word]) -> list[_Word] | None:
    if any(w.value == "-s" for w in words[1:]):
        return None
    return _options(words, _f("-u", "-C"), _f("-n", "-L"))


_OUTER = {"xargs": _unwrap_xargs, "sudo": _unwrap_sudo, "doas": _unwrap_doas}
"""Wrappers that matter themselves (privilege, input-driven arguments): both the wrapper
and the command it runs must be allowed."""


def _find_exec(words: list[_Word]) -> list[list[_Word] | None]:
    out: list[list[_Word] | None] = []
    if any(w.value is None for w in words):
        return [None]  # an expanded word may be -exec, or the program after it
    i = 1
    while i < len(words):
        if words[i].value in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and words[j].value not in (";", "+"):
                j += 1
            out.append(words[i + 1 : j] or None)
            i = j
        i += 1
    return out


def _shell_string(words: list[_Word]) -> str | None:
    """The text of ``bash -c TEXT``; None when the shell would read a script or stdin."""
    command_mode = False
    i = 1
    while i < len(words):
        v = words[i].value
        if v is None:
            return None
        if v in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if v == "--":
            i += 1
            break
        if v.startswith("--"):
            i += 1
            continue
        if v.startswith(("-", "+")) and len(v) > 1:
            command_mode |= v.startswith("-") and "c" in v[1:]
            i += 1
            continue
        break
    if not command_mode or i >= len(words):
        return None
    return words[i].value


def _joined(words: list[_Word]) -> str | None:
    if any(w.value is None for w in words):
        return None
    return " ".join(w.value or "" for w in words)


def _trap_action(words: list[_Word]) -> str | None:
    rest = words[1:]
    while rest and rest[0].value in ("-l", "-p", "--"):
        rest = rest[1:]
    if not rest:
        return ""
    action = rest[0].value
    if action is None:
        return None
    return "" if action == "-" else action


# -- entry points -------------------------------------------------------------------------


def _continuations(source: bytes, root: Node) -> bool:
    """Whether a backslash-newline joins two words (bash joins them; the grammar does not)."""
    start = 0
    while (i := source.find(b"\\\n", start)) != -1:
        start = i + 2
        run = 0
        while i - run >= 0 and source[i - run : i - run + 1] == b"\\":
            run += 1
        if run % 2 == 0:
            continue
        before = source[i - 1 : i] if i > 0 else b" "
        after = source[i + 2 : i + 3] or b" "
        if before.isspace() or after.isspace():
            continue
        node = root.descendant_for_byte_range(i, i + 2)
        if node is not None and node.type in ("raw_string", "comment", "heredoc_body"):
            continue
        return True
    return False


_FALSE_BLANKS = re.compile(r"[\r\v\f]")

_OPENERS = re.compile(rb"`|\$\(|[<>]\(")
_DELIMITERS = frozenset({"`", "$(", "$((", "<(", ">("})
_SUBSTITUTIONS = frozenset({"command_substitution", "arithmetic_expansion", "process_substitution"})


def _unseen_substitution(source: bytes, root: Node) -> str | None:
    """A substitution bash would run where the grammar saw none (``${x:-`cmd`}``, nested
    backquotes, backquotes in a here-document), or None when every one is accounted for."""
    for m in _OPENERS.finditer(source):
        i = m.start()
        node = root.descendant_for_byte_range(i, m.end())
        if node is None or not _accounted(node, source, i, m.group()):
            return m.group().decode()
    return None


def _accounted(node: Node, source: bytes, i: int, opener: bytes) -> bool:
    parent = node.parent
    if node.type in _DELIMITERS and parent is not None and parent.type in _SUBSTITUTIONS:
        return True
    run = 0
    while i - run - 1 >= 0 and source[i - run - 1 : i - run] == b"\\":
        run += 1
    in_backquotes = False
    current: Node | None = node
    while current is not None:
        kind = current.type
        if kind in ("raw_string", "comment", "ansi_c_string"):
            return True
        if kind in ("string", "translated_string") and opener in (b"<(", b">("):
            return True
        if kind == "heredoc_redirect":
            start = next((c for c in current.children if c.type == "heredoc_start"), None)
            if start is not None and any(q in _text(start) for q in "'\"\\"):
                return True
            break
        if kind == "command_substitution" and source[current.start_byte] == ord("`"):
            in_backquotes = True
        current = current.parent
    return run % 2 == 1 and not in_backquotes


def _deeper_than(root: Node, limit: int) -> bool:
    """Whether the syntax tree is more than ``limit`` nodes deep (one cursor pass)."""
    cursor = root.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > limit:
                return True
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
            depth -= 1


def _analyze(command: str, depth: int) -> ShellAnalysis:
    source = command.encode("utf-8", "surrogateescape")
    tree = _parser().parse(source)
    walker = _Walker(depth)
    root = tree.root_node
    if root.has_error:
        walker.hide("the command does not parse as bash")
    if _FALSE_BLANKS.search(command):
        # the grammar skips \r, \v and \f as blanks; bash keeps them in the word, so
        # "git status \r#;cmd" is a comment to one and a word then a command to the other
        walker.hide("a carriage return, vertical tab or form feed outside a string")
    if len(source) > _MAX_SCANNED:
        walker.hide(f"the command is longer than {_MAX_SCANNED // 1024} KiB")
    elif _deeper_than(root, _MAX_TREE_DEPTH):
        # the checks below look nodes up from the root, each lookup as deep as the tree:
        # 160 KB nested 20 000 levels took 20 s
        walker.hide("the command nests too deeply to read")
    else:
        if b"\\\n" in source and _continuations(source, root):
            walker.hide("a backslash-newline joins words")
        if (opener := _unseen_substitution(source, root)) is not None:
            walker.hide(f"a substitution ({opener}…) stands where the grammar did not read one")
    try:
        walker.visit(root)
    except RecursionError:
        walker.hide("the command nests too deeply to read")
    return walker.result()


@lru_cache(maxsize=256)
def _cached(command: str) -> ShellAnalysis:
    return _analyze(command, 0)


def analyze(command: str) -> ShellAnalysis:
    """Every simple command in ``command``, and what (if anything) stays hidden."""
    return _cached(command)


def has_redirection(command: str) -> bool:
    """Whether the command redirects input or output (unknown counts as yes when it might)."""
    result = analyze(command)
    if result.redirection:
        return True
    return bool(result.hidden) and any(c in command for c in "<>")


def root_prefix(command: SimpleCommand) -> str:
    """The part of a command an "allow for this session" covers.

    ``git status -s`` → ``git status``; ``ls -la`` → ``ls``; a multi-command tool
    followed by an option (``git -C x log``) falls back to the first word; an
    interpreter keeps what it runs (``python3 -m pytest -q`` → ``python3 -m pytest``).
    """
    words = command.words
    if not words:
        return ""
    interpreted = interpreter_prefix(words)
    if interpreted is not None:  # never the bare interpreter: it would allow any code
        return interpreted
    if (
        len(words) > 1
        and words[0] in MULTI_COMMAND_TOOLS
        and command.literal[1]
        and not words[1].startswith("-")
    ):
        return shlex.join(words[:2])
    return shlex.quote(words[0])


def rule_prefixes(command: str) -> list[str]:
    """The command prefixes "allow for this session / always" saves for ``command``.

    One per visible simple command, in order, without repeats; assignments and
    transparent wrappers are left out (``CI=1 npm test`` → ``npm test``).
    """
    prefixes: list[str] = []
    for simple in analyze(command).commands:
        prefix = root_prefix(simple)
        if prefix and prefix not in prefixes:
            prefixes.append(prefix)
    return prefixes
