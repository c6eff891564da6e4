"""The ``gemtui`` command. Imports stay lazy so ``--version`` and ``--help`` are instant."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from gemtui import __version__
from gemtui.cli.parser import EXIT_ERROR, EXIT_INPUT, ArgParser
from gemtui.modes import ApprovalMode

if TYPE_CHECKING:  # imported when a run starts: --version and --help stay instant
    from gemtui.agent.assembly import RunOptions

__all__ = ["CLI_ONLY_FLAGS", "SUBCOMMANDS", "build_parser", "main", "run_options"]

APPROVAL_MODES = tuple(ApprovalMode)
OUTPUT_FORMATS = ("text", "json", "stream-json")


def build_parser() -> argparse.ArgumentParser:
    p = ArgParser(
        prog="gemtui",
        description="A full-screen terminal coding agent. Without -p it opens the TUI.",
        epilog="Subcommands: `gemtui auth login|logout|status`, `gemtui sessions [list [--json]]`,"
        " `gemtui mcp list|add|remove|import`, `gemtui extensions install|link|list|enable|"
        "disable|uninstall|update|import`, `gemtui skills list|install|uninstall|enable|disable`,"
        " `gemtui checkpoints [--json]`, `gemtui rewind ID`,"
        " `gemtui agents [--json]` (this folder's running and recent agents),"
        " `gemtui usage [--json] [--days N]` (spend per day, model and agent),"
        " `gemtui setup import [--yes] [--json]` (bring a Gemini CLI or Claude Code setup over).",
    )
    p.add_argument("prompt", nargs="?", help="prompt to send (opens the TUI with it sent)")
    p.add_argument(
        "-p",
        "--prompt",
        dest="headless_prompt",
        metavar="PROMPT",
        help="run one prompt headless and print the answer",
    )
    p.add_argument("-m", "--model", help="model id")
    p.add_argument(
        "--provider",
        metavar="NAME",
        help="gemini, code-assist, vertex, openai, anthropic, or one from settings",
    )
    p.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="text",
        help="headless output: text (default), json, stream-json",
    )
    p.add_argument(
        "--approval-mode", choices=APPROVAL_MODES, help="default, auto_edit, plan or yolo"
    )
    p.add_argument(
        "-y", "--yolo", action="store_true", help="approve every tool call (approval mode yolo)"
    )
    p.add_argument(
        "--max-turns", type=int, metavar="N", help="bound the model turns of one prompt (exit 53)"
    )
    p.add_argument(
        "--max-budget-usd",
        type=float,
        metavar="N",
        help="stop before spending more than N USD in this session (exit 54)",
    )
    p.add_argument(
        "--fallback",
        action="store_true",
        help="on an exhausted quota or an overloaded model, switch to the provider's "
        "fallback model (headless; the TUI asks)",
    )
    p.add_argument(
        "--resume", nargs="?", const="latest", metavar="ID|latest", help="resume a saved session"
    )
    p.add_argument(
        "--fake-responses", metavar="FILE", help="play recorded responses from a JSONL file"
    )
    p.add_argument(
        "--text-tools", action="store_true", help="force text-based tool calling for this run"
    )
    p.add_argument(
        "--trust-workspace",
        action="store_true",
        help="apply this folder's own .gemtui/ settings and policy for this run",
    )
    p.add_argument(
        "--include-directories",
        action="append",
        default=[],
        metavar="DIR[,DIR]",
        help="more folders the tools may reach (comma-separated or repeated)",
    )
    p.add_argument(
        "-s",
        "--sandbox",
        action="store_true",
        help="run shell commands under bubblewrap: only the workspace writable, no network",
    )
    p.add_argument(
        "--screen-reader",
        action="store_true",
        help="a linear plain-text screen for screen readers: one line per event, no box "
        "drawing, no spinners (as the setting ui.accessibility.screenReader)",
    )
    p.add_argument(
        "-w",
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="work in the git worktree .gemini/worktrees/NAME (made if new; a random NAME "
        "when none is given), left in place on exit",
    )
    p.add_argument(
        "--acp",
        "--experimental-acp",
        dest="acp",
        action="store_true",
        help="serve the Agent Client Protocol on stdio (for editors such as Zed)",
    )
    p.add_argument("--version", action="version", version=f"gemtui {__version__}")
    return p


def _read_stdin(*, wait: float | None = None) -> str | None:
    """Piped stdin as text (undecodable bytes replaced), or None.

    With ``wait`` (when ``-p`` already gives a prompt), stdin is read only if something
    arrives within that many seconds, so a parent that leaves an idle pipe open (CI,
    ``spawn``) cannot hang the run.
    """
    if sys.stdin is None or sys.stdin.isatty():
        return None
    if wait is not None:
        import select

        try:
            ready, _, _ = select.select([sys.stdin], [], [], wait)
        except (OSError, ValueError):
            return None
        if not ready:
            return None
    data = sys.stdin.buffer.read().decode("utf-8", "replace")
    return data if data.strip() else None


SUBCOMMANDS = (
    "auth",
    "sessions",
    "agents",
    "usage",
    "checkpoints",
    "rewind",
    "mcp",
    "extensions",
    "setup",
    "skills",
)
"""``gemtui NAME …``: each is a module beside this one that adds its own parser."""


def _parse_subcommand(argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed by its subcommand's parser, whose usage and name an error shows.

    The parsers are built only when a subcommand runs; their modules import nothing heavy
    until their command does.
    """
    import importlib

    p = ArgParser(prog="gemtui")
    sub = p.add_subparsers(dest="subcommand", required=True, parser_class=ArgParser)
    for name in SUBCOMMANDS:
        importlib.import_module(f"gemtui.cli.{name}").add_parser(sub)
    args, extra = p.parse_known_args(argv)
    if extra:  # said by the subcommand (argparse would name the top parser)
        sub.choices[args.subcommand].error(f"unrecognized arguments: {' '.join(extra)}")
    return args


CLI_ONLY_FLAGS = frozenset({"help", "version", "acp", "headless_prompt", "yolo", "worktree"})
"""Flags that choose the front end or fold into another (``-y`` is an approval mode,
``-w`` the workspace);
every other flag's ``dest`` is a ``RunOptions`` field of the same name."""


def run_options(
    args: argparse.Namespace, workspace: Path, *, prompt: str | None, interactive: bool = True
) -> RunOptions:
    """The run the flags ask for: built once here, handed whole to the front end
    (``interactive`` False for a headless run, which refuses what it would have to ask).

    Each flag lands in the field its ``dest`` names, so a new flag is its
    ``add_argument``, its field and the code that reads it.
    """
    from dataclasses import fields

    from gemtui.agent.assembly import RunOptions

    given = {f.name: getattr(args, f.name) for f in fields(RunOptions) if f.name in vars(args)}
    return RunOptions(
        **{
            **given,
            "workspace": workspace,
            "prompt": prompt,
            "interactive": interactive,
            "approval_mode": "yolo" if args.yolo else args.approval_mode,
            "include_directories": tuple(args.include_directories),
        }
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:  # a prompt may be any word: only the first counts
        command = _parse_subcommand(argv)
        return int(command.run(command))
    args = build_parser().parse_args(argv)
    typo = _subcommand_typo(args.prompt) if "--" not in argv else None
    if typo is not None and args.headless_prompt is None:
        answer = _ask_about_typo(args.prompt, typo)
        if answer == "run":
            return main([typo])
        if answer != "send":
            return EXIT_INPUT
    if args.max_turns is not None and args.max_turns < 1:
        sys.stderr.write("gemtui: --max-turns must be at least 1\n")
        return EXIT_INPUT
    if args.max_budget_usd is not None and not args.max_budget_usd > 0:
        sys.stderr.write("gemtui: --max-budget-usd must be more than 0\n")
        return EXIT_INPUT
    workspace = Path(os.getcwd()).resolve()
    if args.worktree is None:
        return _main(args, workspace)
    from gemtui.cli.worktree import WorktreeError, open_worktree

    try:
        worktree = open_worktree(workspace, args.worktree)
    except WorktreeError as exc:
        sys.stderr.write(f"gemtui: --worktree: {exc}\n")
        return EXIT_INPUT
    sys.stderr.write(worktree.greeting())
    try:
        return _main(args, worktree.path)
    finally:  # after the TUI has left the screen, or the headless answer
        sys.stderr.write(worktree.farewell())


def _subcommand_typo(prompt: str | None) -> str | None:
    """The subcommand a lone word nearly spells (``checkpoint``): sent as is, it would be a
    paid prompt nobody meant. Sentences and words unlike any subcommand are prompts."""
    if prompt is None or len(prompt.split()) != 1:
        return None
    import difflib

    word = prompt.strip().lower()
    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.8)
    return close[0] if close and close[0] != prompt.strip() else None


def _ask_about_typo(word: str, meant: str) -> str:
    """ "run" the subcommand, "send" the word as a prompt, or "" (exit 42): asked at a
    terminal, refused with the way to send it otherwise (nothing was spent either way)."""
    sys.stderr.write(f"gemtui: did you mean `gemtui {meant}`? ({word!r} was not sent.)\n")
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        sys.stderr.write(
            f"gemtui: to send it as a prompt: gemtui -- {word}  (headless: gemtui -p {word})\n"
        )
        return ""
    sys.stderr.write(f"Run `gemtui {meant}`? y = run it · p = send {word!r} as a prompt · [n]: ")
    sys.stderr.flush()
    try:
        reply = sys.stdin.readline().strip().lower()
    except KeyboardInterrupt:
        reply = ""
    return {"y": "run", "yes": "run", "p": "send"}.get(reply, "")


def _main(args: argparse.Namespace, workspace: Path) -> int:
    """The run the flags ask for, in ``workspace`` (the folder, or its ``-w`` worktree)."""
    if args.acp:
        from gemtui.acp import run_acp

        return run_acp(run_options(args, workspace, prompt=None))
    prompt = args.headless_prompt
    piped = None if prompt is not None or args.prompt is not None else _read_stdin()
    text: str | None = None
    if prompt is not None or piped is not None:
        if prompt is not None:
            # `git diff | gemtui -p "review"`: stdin joins the prompt
            piped = _read_stdin(wait=0.5)
        text = "\n\n".join(x for x in (piped, prompt) if x)
        if not text.strip():
            sys.stderr.write("gemtui: the prompt is empty\n")
            return EXIT_INPUT
    from gemtui.collector import start_up

    with start_up():  # the collector waits until the engine is built
        if text is not None:
            from gemtui.headless import run_headless

            return run_headless(run_options(args, workspace, prompt=text, interactive=False))
        from gemtui.tui.launch import launch_tui

        return launch_tui(
            run_options(args, workspace, prompt=args.prompt), open_worktree=_new_worktree
        )


def _new_worktree(project: Path, task: str) -> tuple[Path, str]:
    """A fresh ``-w`` worktree (a random name) for an agent the agent view starts."""
    from gemtui.cli.worktree import open_worktree

    made = open_worktree(project, None)
    return made.path, made.branch


def _silence_broken_output() -> None:
    """Point stdout and stderr at /dev/null so the flush at exit cannot fail again.

    Python's own advice for EPIPE; without it the interpreter prints "Exception ignored …
    BrokenPipeError" while shutting down.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            os.dup2(devnull, stream.fileno())
    os.close(devnull)


def run() -> None:
    from gemtui.redact import finish, wrap

    stderr = sys.stderr = wrap(sys.stderr)  # every message, whichever layer writes it
    try:
        code = main()
        sys.stdout.flush()
    except KeyboardInterrupt:  # Ctrl-C before the run installed its own handling
        sys.stderr.write("gemtui: cancelled\n")
        code = 130
    except BrokenPipeError:  # `gemtui … | head -c 1`: the reader left; exit quietly
        _silence_broken_output()
        code = EXIT_ERROR
    finally:
        finish(stderr)
    _exit_now(code)


def _exit_now(code: int) -> NoReturn:
    """End the process as soon as the run is over.

    The ``atexit`` handlers run (log flush, anything a module registered) and stdio is
    flushed, then the process ends without tearing down every module and object one by
    one: that teardown costs 50-150 ms and is most of the wait after Ctrl-C.
    """
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left: nothing more can reach it
        _silence_broken_output()
    except BaseException:  # never trade a clean exit code for a traceback here
        raise SystemExit(code) from None
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
