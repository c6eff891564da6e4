"""Which tool next: the grammar of a constrained turn narrowed to the step the task needs.

Under the grammar (``constrained_tools``) a 0.5B model still picks the wrong one of its
choices: asked to change a file, it reads the file and then answers (``final_answer``)
instead of calling ``replace``; asked which port a project's server listens on, it lists
the folder and answers from imagination. So, while the person's request is not done and
for at most ``STEER_STEPS`` tool results (after which every choice is offered again, so
the model can always finish), the next step is narrowed by two general rules:

- **A change was asked for and no edit has happened:** ``final_answer`` is withheld.
  Until a file has been read the step is a look (read before edit), ``read_file``
  offered the files the request names; once a file has been read, the step is the
  edit: ``replace`` on a file that was read, its ``old_string`` one of the lines that
  occur once in what was read (the grammar's enum), so the edit always finds its text.
- **A question, the folder listed, nothing read yet:** the step is a look inside —
  ``read_file`` of a file the listing showed (an enum of those paths, so no invented
  path) or ``grep_search`` — and while listed files remain unread, ``read_file`` stays
  offered for them (a README that says "settings live in server.toml" leads on there).

A change request is told from the person's words: a change verb (change, replace, edit,
fix, rename, …), something in the project it applies to (a file name, an identifier, or
words like *file*, *function*, *line*), and no question word first. What it misses is
left to the model as before.
"""

from __future__ import annotations

import posixpath
import re

from msgspec import Struct, field

from gemtui.wire import Content, FunctionCall, FunctionDeclaration, FunctionResponse

__all__ = ["STEER_STEPS", "NextStep", "asks_for_change", "next_step"]

STEER_STEPS = 4
"""Tool results after the request past which nothing is narrowed any more."""
EDIT_TOOLS = ("replace", "write_file")
READ_TOOL = "read_file"
SEARCH_TOOL = "grep_search"
LIST_TOOL = "list_directory"
LOOK_TOOLS = (READ_TOOL, SEARCH_TOOL, "read_many_files")
MAX_LINES = 200
"""Files with more distinct lines than this leave ``old_string`` free (a long enum is a
long grammar, and the model reads long files through ``offset`` anyway)."""
MAX_LINE_CHARS = 300

_CHANGE_VERB = re.compile(
    r"\b(change|replace|edit|modify|update|rename|set|fix|remove|delete|add|insert|append|"
    r"refactor|bump|increase|decrease|turn)\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^\W*(what|which|where|who|why|when|how|is|are|does|do|did|explain|describe|tell)\b",
    re.IGNORECASE,
)
_TARGET = re.compile(
    r"(\b[\w./-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}\b)|(\b[A-Za-z]+_\w+)|(\b[a-z]+[A-Z]\w*)|"
    r"\b(files?|function|method|class|line|constant|variable|code|module)\b"
)


def asks_for_change(prompt: str) -> bool:
    """Whether ``prompt`` asks for a change to the project rather than a question."""
    text = prompt.strip()
    return (
        bool(_CHANGE_VERB.search(text))
        and bool(_TARGET.search(text))
        and not _QUESTION_START.match(text)
    )


class NextStep(Struct):
    """The narrowed choice: the declarations the grammar allows (some with narrowed
    arguments) and whether ``final_answer`` is among them."""

    tools: list[FunctionDeclaration]
    answer: bool
    why: str


class _History(Struct):
    """What the model did since the person's last words."""

    prompt: str = ""
    done: list[tuple[FunctionCall, FunctionResponse]] = field(default_factory=list)

    def succeeded(self, *names: str) -> list[tuple[FunctionCall, str]]:
        return [
            (call, _output(resp))
            for call, resp in self.done
            if call.name in names and "error" not in resp.response
        ]


def _output(response: FunctionResponse) -> str:
    out = response.response.get("output")
    return out if isinstance(out, str) else ""


def _history(contents: list[Content]) -> _History:
    """The last text the person wrote and the calls (with their results) after it."""
    start = 0
    prompt = ""
    for i in range(len(contents) - 1, -1, -1):
        c = contents[i]
        texts = [p.text for p in c.parts if p.text and not p.thought]
        if c.role == "user" and texts and not any(p.function_response for p in c.parts):
            start, prompt = i, "\n".join(texts)
            break
    history = _History(prompt=prompt)
    pending: list[FunctionCall] = []
    for c in contents[start + 1 :]:
        for part in c.parts:
            if part.function_call is not None:
                pending.append(part.function_call)
            elif part.function_response is not None and pending:
                resp = part.function_response
                match = next((x for x in pending if resp.id and x.id == resp.id), None)
                call = match or next((x for x in pending if x.name == resp.name), pending[0])
                pending.remove(call)
                history.done.append((call, resp))
    return history


def _narrow(decl: FunctionDeclaration, values: dict[str, list[str]]) -> FunctionDeclaration:
    """``decl`` whose string parameters in ``values`` may only take those values."""
    schema = dict(decl.parameters_json_schema or decl.parameters or {})
    props = dict(schema.get("properties") or {})
    for name, allowed in values.items():
        props[name] = {**(props.get(name) or {}), "type": "string", "enum": allowed}
    schema["properties"] = props
    return decl.model_copy(update={"parameters_json_schema": schema, "parameters": None})


def _unique_lines(texts: list[str]) -> list[str]:
    """Lines that occur exactly once in all of ``texts`` (so a replace of one finds one
    match), or [] when there are too many to spell out."""
    counts: dict[str, int] = {}
    for text in texts:
        for line in text.splitlines():
            if line.strip() and len(line) <= MAX_LINE_CHARS:
                counts[line] = counts.get(line, 0) + 1
    lines = [line for line, n in counts.items() if n == 1]
    return lines if 0 < len(lines) <= MAX_LINES else []


def _listed_files(history: _History) -> list[str]:
    """The files (not folders) the listings showed, as paths from where they were
    listed, in the order shown."""
    paths: list[str] = []
    for call, output in history.succeeded(LIST_TOOL):
        where = str(call.args.get("dir_path") or call.args.get("path") or ".")
        for line in output.splitlines()[1:]:
            name = line.strip()
            if not name or name.startswith(("[DIR]", "(")):
                continue
            path = posixpath.normpath(posixpath.join(where, name))
            if path not in paths:
                paths.append(path)
    return paths


def _change_step(history: _History, decls: dict[str, FunctionDeclaration]) -> NextStep | None:
    if history.succeeded(*EDIT_TOOLS) or not any(n in decls for n in EDIT_TOOLS):
        return None
    reads = history.succeeded(READ_TOOL)
    if reads and "replace" in decls:
        paths = list(dict.fromkeys(str(call.args.get("file_path", "")) for call, _ in reads))
        values = {"file_path": [p for p in paths if p]}
        lines = _unique_lines([output for _, output in reads])
        if lines:
            values["old_string"] = lines
        replace = _narrow(decls["replace"], values) if values["file_path"] else decls["replace"]
        return NextStep([replace], answer=False, why="a change was asked for and a file was read")
    # read before edit (as Claude Code's Edit demands): a look first, the files the
    # request names offered to read_file until each was tried; as after any results the
    # tool that just answered is left out (the 0.5B repeats itself), unless it failed
    # once: a tool that failed twice is left out too (the 0.5B listed a file as a folder
    # four times over, its steps gone before it read it)
    worn = _failed_twice(history)
    last = {
        resp.name
        for _, resp in history.done[-1:]
        if "error" not in resp.response or resp.name in worn
    }
    looks = [n for n in (READ_TOOL, SEARCH_TOOL, LIST_TOOL, "glob") if n in decls and n not in last]
    tools = [decls[n] for n in looks] or [d for n, d in decls.items() if n not in EDIT_TOOLS]
    tried = {posixpath.normpath(str(c.args.get("file_path", ""))) for c, _ in history.done}
    named = [f for f in _named_files(history.prompt) if posixpath.normpath(f) not in tried]
    if named and READ_TOOL in looks:
        tools[looks.index(READ_TOOL)] = _narrow(decls[READ_TOOL], {"file_path": named})
    return NextStep(tools, answer=False, why="a change was asked for and nothing was read yet")


def _named_files(prompt: str) -> list[str]:
    """The file names the request spells out (``limits.py``, ``src/app/main.ts``)."""
    return list(dict.fromkeys(m.group(1) for m in _TARGET.finditer(prompt) if m.group(1)))


def _identifiers(prompt: str) -> list[str]:
    """The code names a question spells out (``parse_invoice``, ``loadConfig``)."""
    found = (m.group(2) or m.group(3) for m in _TARGET.finditer(prompt))
    return list(dict.fromkeys(name for name in found if name))


def _search_step(history: _History, decls: dict[str, FunctionDeclaration]) -> NextStep | None:
    """A question naming a code name is searched for that name before any answer (the
    0.5B guessed a file, read the wrong one and answered from it)."""
    names = [n for n in _identifiers(history.prompt) if n not in decls]  # "use read_file"
    if not names or SEARCH_TOOL not in decls or history.succeeded(SEARCH_TOOL):
        return None
    if SEARCH_TOOL in _failed_twice(history):
        return None
    search = _narrow(decls[SEARCH_TOOL], {"pattern": names})
    return NextStep([search], answer=False, why="the question names code: search for it")


def _failed_twice(history: _History) -> set[str]:
    """Tools whose calls failed at least twice: the 0.5B repeats a failing call as is."""
    failed = [resp.name for _, resp in history.done if "error" in resp.response]
    return {name for name in failed if failed.count(name) > 1}


def _question_step(history: _History, decls: dict[str, FunctionDeclaration]) -> NextStep | None:
    found = history.succeeded(*LOOK_TOOLS, LIST_TOOL, "glob")
    if not found and history.done and "error" in history.done[-1][1].response:
        # every look failed so far: no answer from nothing (the 0.5B read an invented
        # file, then said it could not find one) — look again, another way
        worn = _failed_twice(history)
        looks = (SEARCH_TOOL, LIST_TOOL, "glob", READ_TOOL)
        tools = [decls[n] for n in looks if n in decls and n not in worn]
        return NextStep(tools, answer=False, why="every look failed so far") if tools else None
    listed = _listed_files(history)
    if READ_TOOL not in decls or not listed:
        return None
    read = {posixpath.normpath(str(call.args.get("file_path", ""))) for call, _ in history.done}
    unread = [p for p in listed if p not in read]
    looked = bool(history.succeeded(*LOOK_TOOLS))
    if not unread:
        return None
    tools = [_narrow(decls[READ_TOOL], {"file_path": unread})]
    if not looked and SEARCH_TOOL in decls:
        tools.append(decls[SEARCH_TOOL])
    why = "the folder was listed" if not looked else "listed files remain unread"
    return NextStep(tools, answer=looked, why=why)


def next_step(contents: list[Content], decls: list[FunctionDeclaration]) -> NextStep | None:
    """The narrowed next step for a constrained turn, or None to offer every choice."""
    history = _history(contents)
    if not history.prompt or len(history.done) >= STEER_STEPS:
        return None
    by_name = {d.name: d for d in decls}
    if asks_for_change(history.prompt):
        return _change_step(history, by_name)
    searched = _search_step(history, by_name)
    if searched is not None or not history.done:
        return searched
    return _question_step(history, by_name)
