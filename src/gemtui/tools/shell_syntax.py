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
from functools import lru_cache
from typing import TYPE_CHECKING

from msgspec import Struct

from gemtui.tools.shell_scan import deeper_than, joined_by_continuation, unseen_substitution
from gemtui.tools.shell_words import (
    BARE_TOKENS,
    Word,
    bare_newline,
    late_words,
    node_text,
    short,
    snippet,
    split_by_newline,
    word_value,
)
from gemtui.tools.shell_wrappers import (
    OUTER_WRAPPERS,
    TRANSPARENT_WRAPPERS,
    find_exec,
    joined,
    shell_string,
    trap_action,
)

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = [
    "ShellAnalysis",
    "SimpleCommand",
    "analyze",
    "has_redirection",
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


class SimpleCommand(Struct, frozen=True):
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


class ShellAnalysis(Struct, frozen=True):
    """What a command line will run, and why parts of it may be out of sight."""

    commands: tuple[SimpleCommand, ...] = ()
    hidden: tuple[str, ...] = ()
    """Why the text is not fully visible; empty when every command is known."""
    redirection: bool = False
    unsafe_assignments: tuple[str, ...] = ()
    """Variables set outside the safe list, alone, before a command or through ``env``."""
    targets: tuple[str, ...] = ()
    """Each redirection's file as bash will name it (its source text when not literal)."""

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


# -- the walk ------------------------------------------------------------------------------


class _Walker:
    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.commands: list[SimpleCommand] = []
        self.hidden: list[str] = []
        self.unsafe: list[str] = []
        self.redirection = False
        self._redirected = 0
        self.targets: list[str] = []
        self._late_words: dict[int, list[Node]] = {}

    def result(self) -> ShellAnalysis:
        return ShellAnalysis(
            tuple(self.commands),
            tuple(self.hidden),
            self.redirection,
            tuple(self.unsafe),
            tuple(self.targets),
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
            if (dest := node.child_by_field_name("destination")) is not None:
                self.targets.append(word_value(dest) or node_text(dest))
        elif kind not in _STRUCTURAL:
            self.hide(f"bash construct {kind!r} is not modelled")
        elif kind in ("simple_expansion", "concatenation") and split_by_newline(node):
            # "$\\⏎⏎cmd": bash reads a lone $, a line break, then cmd; the grammar reads
            # one expansion of a variable named cmd
            self.hide("a line break inside a word")
        elif kind in BARE_TOKENS and bare_newline(node_text(node)):
            # the grammar can glue the next line onto a word ("ok\n\\rm" as one word)
            self.hide("a line break inside a word")
        if kind not in ("command", "declaration_command", "unset_command"):
            self._children(node)

    def _late_arguments(self, node: Node) -> None:
        """Words after a redirection's target: the grammar files them under the redirect,
        bash gives them to the command (``command >/dev/null rm -f f`` runs ``rm``)."""
        late = [extra for child in node.children for extra in late_words(child)]
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
        words: list[Word] = []
        redirected = self._redirected > 0
        for i, child in enumerate(node.children):
            role = node.field_name_for_child(i)
            if child.type == "variable_assignment":
                assignments.append(self._assigned_name(child))
            elif child.type in _REDIRECTS:
                redirected = True
                self.redirection = True
            elif role in ("name", "argument"):
                words.append(Word(word_value(child), node_text(child)))
            self.visit_inner(child)
        if split_by_newline(node):
            # "git status⏎\\⏎cmd": bash ends the command at the first line break, the
            # grammar reads the continuation after it as joining the next line's words
            self.hide("a line break between the words of one command")
        words.extend(Word(word_value(w), node_text(w)) for w in self._late_words.pop(node.id, []))
        name_node = node.child_by_field_name("name")
        if name_node is not None and node_text(name_node) in _RESERVED:
            # bash never runs a bare reserved word as a command: the grammar misread a
            # compound statement (``! if …; fi`` parses as commands named if, then, fi)
            self.hide(f"the grammar misread the reserved word {node_text(name_node)!r}")
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
        words = [Word(node_text(node.children[0]), node_text(node.children[0]))]
        assigned: list[str] = []
        for child in node.children[1:]:
            if child.type == "variable_assignment":
                assigned.append(self._assigned_name(child))
                words.append(Word(None, node_text(child)))
                self._assignment(child, record=False)
            else:
                words.append(Word(word_value(child), node_text(child)))
                self.visit(child)
        flags = "".join(w.value or "" for w in words[1:] if (w.value or "").startswith("-"))
        if "i" in flags or "n" in flags:
            self.hide(f"{short(words[0].shown)} -i/-n evaluates values as arithmetic or references")
        for child in node.children[1:]:
            if self._declared_evaluated(child):
                self.hide(f"{short(node_text(child))!r} names a subscript or value bash evaluates")
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
            literal = word_value(value)
            if literal is not None:
                return literal.lstrip().startswith("(")
            return node_text(value).lstrip("\"'").startswith(("$", "`"))
        if not child.is_named or child.type in ("comment", *_REDIRECTS):
            return False
        return _evaluated_name(word_value(child))

    def _assigned_name(self, node: Node) -> str:
        name = node.child_by_field_name("name")
        return (
            node_text(name)
            if name is not None and name.type == "variable_name"
            else node_text(node)
        )

    def _assignment(self, node: Node, record: bool = True) -> None:
        if record:
            self._note_assignments([self._assigned_name(node)])
        self._children(node)

    def _note_assignments(self, names: list[str]) -> None:
        for name in names:
            if name in DANGEROUS_ASSIGNMENTS or name.startswith(("BASH_FUNC_", "DYLD_")):
                self.hide(f"it sets {name}, which changes what later commands run")
            if not name.isidentifier():
                self.hide(f"assignment to {short(name)!r} evaluates a subscript")
            if not _safe_name(name) and name not in self.unsafe:
                self.unsafe.append(name)

    def _expansion(self, node: Node) -> None:
        ops = [node_text(c) for c in node.children if not c.is_named and c.type not in ("${", "}")]
        unsafe = [op for op in ops if op in _UNSAFE_EXPANSION_OPS]
        if unsafe:
            where = snippet(node)
            self.hide(f"the expansion {where!r} evaluates or assigns text ({unsafe[0]})")
        if ":" in ops:
            after = node.children[[c.type for c in node.children].index(":") :]
            if any(c.is_named and c.type != "number" for c in after):
                where = snippet(node)
                self.hide(f"the substring offsets in {where!r} are evaluated as arithmetic")

    def _subscript(self, node: Node) -> None:
        index = node.child_by_field_name("index")
        if index is not None and not (index.type == "number" or node_text(index) in ("@", "*")):
            self.hide(f"the subscript in {snippet(node)!r} is evaluated as arithmetic")

    def _arithmetic(self, node: Node) -> None:
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            named = child.type in ("variable_name", "word", "simple_expansion", "expansion")
            if named and not (child.type == "word" and node_text(child).isdigit()):
                self.hide(f"{snippet(node)!r} evaluates variables as arithmetic")
                return
            stack.extend(child.named_children)

    def _test(self, node: Node) -> None:
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type == "test_operator" and node_text(child) in _ARITH_TEST_OPS:
                self.hide(f"{snippet(node)!r} evaluates its operands as arithmetic")
                return
            stack.extend(child.named_children)

    # commands and wrappers

    def _run(
        self,
        words: list[Word],
        assignments: tuple[str, ...],
        redirected: bool,
        via: tuple[str, ...],
    ) -> None:
        """Record ``words`` as a command, seeing through wrappers and nested shell text."""
        if not words:
            return
        head = words[0]
        if head.value is None:
            self.hide(f"the command name {short(head.source)!r} comes from an expansion")
            return
        name = os.path.basename(head.value)
        if not name or head.value.endswith("/"):
            self.hide(f"{short(head.source)!r} is not a command name gemtui can read")
            return
        words = [Word(name, head.source), *words[1:]]
        if (named := _variable_names(words)) is not None:
            self.hide(f"{name} sets or tests {short(named)!r}, whose subscript bash evaluates")
        if name in HIDING_COMMANDS:
            self.hide(f"{name} runs code that is not in the command text")
        if name in TRANSPARENT_WRAPPERS:
            inner, env = TRANSPARENT_WRAPPERS[name](words)
            if inner is None:
                self.hide(f"the arguments of {name} could not be read")
            elif inner:
                self._note_assignments(env)
                self._run(inner, assignments + tuple(env), redirected, (*via, name))
                return
        self._emit(words, assignments, redirected, via)
        if name in OUTER_WRAPPERS:
            inner = OUTER_WRAPPERS[name](words)
            if inner is None:
                self.hide(f"the command that {name} runs could not be read")
            elif inner:
                self._run(inner, (), redirected, (*via, name))
        elif name == "find":
            for inner in find_exec(words):
                if inner is None:
                    self.hide("the command that find -exec runs could not be read")
                else:
                    self._run(inner, (), redirected, (*via, name))
        elif name in SHELLS:
            self._nested(shell_string(words), f"{name} without -c runs a script or stdin")
        elif name == "eval":
            self._nested(joined(words[1:]), "eval runs text that comes from an expansion")
        elif name == "trap":
            self._nested(trap_action(words), "trap runs text that comes from an expansion")

    def _emit(
        self,
        words: list[Word],
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
        self.targets.extend(inner.targets)
        self._note_assignments(list(inner.unsafe_assignments))


def _evaluated_name(value: str | None) -> bool:
    """Whether a variable name is unknown or has a subscript other than a plain number."""
    return value is None or bool(_EVALUATED_NAME.search(value))


def _variable_names(words: list[Word]) -> str | None:
    """The first word a builtin takes as a variable name that bash would evaluate, if any.

    ``printf -v NAME``, ``read NAME…``, ``unset``, ``wait -p``, ``getopts`` and
    ``test -v``/``-R`` assign or look up NAME; a subscript in it (or in a variable it
    names) is arithmetic, and arithmetic on text runs its command substitutions.
    """
    name, args = words[0].value, words[1:]
    candidates: list[Word] = []
    if name == "printf":
        for i, w in enumerate(args):
            if not (w.shown.startswith("-v") or w.source.lstrip("\"'").startswith("-v")):
                continue
            if w.value == "-v":
                candidates.extend(args[i + 1 : i + 2])
            else:  # -vNAME, or a word only partly known (-va[$'\x24'"(cmd)"])
                candidates.append(Word(w.value and w.value[2:], w.source))
    elif name in _NAMES_EVERY_ARG or (
        name in ("test", "[") and any(w.value in ("-v", "-R") for w in args)
    ):
        candidates = args
    for w in candidates:
        if _evaluated_name(w.value):
            return w.shown
    return None


# -- entry points -------------------------------------------------------------------------


_FALSE_BLANKS = re.compile(r"[\r\v\f]")


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
    elif deeper_than(root, _MAX_TREE_DEPTH):
        # the checks below look nodes up from the root, each lookup as deep as the tree:
        # 160 KB nested 20 000 levels took 20 s
        walker.hide("the command nests too deeply to read")
    else:
        if b"\\\n" in source and joined_by_continuation(source, root):
            walker.hide("a backslash-newline joins words")
        if (opener := unseen_substitution(source, root)) is not None:
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
