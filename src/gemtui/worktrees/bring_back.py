"""Bringing an agent's work back from its git worktree: its diff, then merge, keep or discard.

The work is everything the worktree holds against the commit it started from: its commits,
its staged and unstaged changes and its untracked files (ignored ones excepted). It is
read through a throwaway index, so neither the worktree's index nor its branch moves.

- ``merge`` brings that work into the main checkout's current branch as one merge commit.
  The merge is first computed with ``git merge-tree`` (nothing is written to any checkout);
  a conflict is reported by file and the main checkout stays exactly as it was.
- ``keep`` leaves the worktree and its branch in place.
- ``discard`` removes the worktree and its branch; uncommitted work is never removed
  unless the caller says so a second time (``uncommitted=True``). A front end shows
  ``discard_plan`` (the worktree, its branch, its unmerged commits and uncommitted files)
  and passes the plan confirmed: if the worktree no longer matches it (a new file, a new
  commit), ``WorkChangedError`` carries the new plan and nothing is removed.

Any ``git worktree add`` path works (``gemtui -w`` makes ``.gemini/worktrees/NAME`` on
``worktree-NAME``). Errors are ``BringBackError`` and its subclasses, each a sentence.
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gemtui.worktrees.git import git_said, run_git

__all__ = [
    "BringBackError",
    "DiscardPlan",
    "MergeConflictError",
    "UncommittedWorkError",
    "WorkChangedError",
    "WorkDiff",
    "discard",
    "discard_plan",
    "keep",
    "merge",
    "work_diff",
]


class BringBackError(Exception):
    """Why the work could not be read, merged or discarded (one sentence for the person)."""


class MergeConflictError(BringBackError):
    """The merge would conflict; ``files`` names them. Nothing was changed."""

    def __init__(self, message: str, files: tuple[str, ...]) -> None:
        super().__init__(message)
        self.files = files


class UncommittedWorkError(BringBackError):
    """Discarding would delete uncommitted work (``files``); it needs a second yes."""

    def __init__(self, message: str, files: tuple[str, ...]) -> None:
        super().__init__(message)
        self.files = files


@dataclass(frozen=True)
class DiscardPlan:
    """Exactly what a discard removes, as read when the person is asked: a discard given
    this plan removes nothing if the worktree holds anything else by then."""

    worktree: Path
    branch: str | None
    head: str
    """The branch's commit: a commit made after the question is not discarded unseen."""
    unmerged: tuple[str, ...]
    """Commits the main checkout's HEAD does not have (``abc1234 subject``), newest first."""
    files: tuple[str, ...]
    """Uncommitted, untracked and git-ignored paths (``git status`` with ``--ignored``)."""

    def describe(self, limit: int = 12) -> str:
        """The question's detail: every item, so a yes is a yes to exactly this."""

        def listed(items: tuple[str, ...]) -> str:
            more = f"\n  … and {len(items) - limit} more" if len(items) > limit else ""
            return "".join(f"\n  {item}" for item in items[:limit]) + more

        lines = [f"Removed: the worktree {self.worktree}"]
        if self.branch:
            lines.append(f"and the branch {self.branch}")
        if self.unmerged:
            lines.append(f"Unmerged commits lost ({len(self.unmerged)}):{listed(self.unmerged)}")
        if self.files:
            lines.append(f"Uncommitted files deleted ({len(self.files)}):{listed(self.files)}")
        if not self.unmerged and not self.files:
            lines.append("No unmerged commit and no uncommitted file.")
        return "\n".join(lines)


class WorkChangedError(BringBackError):
    """The worktree changed since the discard was confirmed; ``plan`` is what it holds
    now. Nothing was removed: ask again with the new plan."""

    def __init__(self, message: str, plan: DiscardPlan) -> None:
        super().__init__(message)
        self.plan = plan


@dataclass(frozen=True)
class WorkDiff:
    """What an agent's worktree holds against the commit it started from."""

    worktree: Path
    project: Path
    """The main checkout the worktree belongs to (where a merge lands)."""
    branch: str | None
    """The worktree's branch, or None when its HEAD is detached."""
    base: str
    """The commit the diff is taken from (where the worktree's history left ``base``)."""
    head: str
    """The worktree's own HEAD commit."""
    snapshot: str
    """A commit holding the worktree's files as they are now (``head`` when nothing is
    uncommitted); it belongs to no branch."""
    diff: str
    """The unified diff, in the form the approval diff view draws."""
    files: tuple[str, ...]
    """The paths the diff touches."""
    uncommitted: tuple[str, ...]
    """Paths with uncommitted changes or untracked, as ``git status`` lists them."""
    commits: int
    """Commits on the worktree's HEAD since ``base``."""

    @property
    def empty(self) -> bool:
        return not self.diff.strip()


def _git(
    args: list[str], cwd: Path, *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_git(args, cwd, env=env, error=BringBackError)


_said = git_said


def _out(args: list[str], cwd: Path, *, env: dict[str, str] | None = None) -> str:
    proc = _git(args, cwd, env=env)
    if proc.returncode != 0:
        raise BringBackError(f"git {args[0]} failed in {cwd}: {_said(proc)}")
    return proc.stdout.strip()


def _top(worktree: Path) -> tuple[Path, Path]:
    """The worktree's top folder and its repository's main checkout."""
    if not worktree.is_dir():
        raise BringBackError(f"{worktree} is not a folder: the worktree is gone")
    proc = _git(["rev-parse", "--show-toplevel", "--git-common-dir"], worktree)
    if proc.returncode != 0:
        raise BringBackError(f"{worktree} is not in a git worktree: {_said(proc)}")
    top_s, common_s = proc.stdout.strip().splitlines()
    common = Path(common_s)
    common = (worktree / common).resolve() if not common.is_absolute() else common.resolve()
    if common.name != ".git":
        raise BringBackError(f"{common} is a bare repository: there is no checkout to merge into")
    return Path(top_s).resolve(), common.parent


def _commit(ref: str, cwd: Path) -> str:
    """``ref`` as a commit id; a ref that is not one (or looks like an option) is refused."""
    proc = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], cwd)
    if proc.returncode != 0 or not proc.stdout.strip():
        raise BringBackError(f"{ref!r} is not a commit of the repository at {cwd}")
    return proc.stdout.strip()


def _status(worktree: Path, *, ignored: bool = False) -> tuple[str, ...]:
    """Paths with uncommitted changes or untracked; ``ignored``: git-ignored ones too,
    each ending in `` (ignored)`` (a whole ignored folder as one ``dir/``)."""
    flags = ["--ignored"] if ignored else []
    proc = _git(["status", "--porcelain=v1", "-z", "--untracked-files=all", *flags], worktree)
    if proc.returncode != 0:
        raise BringBackError(f"git status failed in {worktree}: {_said(proc)}")
    out = proc.stdout  # not stripped: each entry starts with its two status letters
    paths: list[str] = []
    entries = iter(out.split("\0"))
    for entry in entries:
        if not entry:
            continue
        paths.append(entry[3:] + (" (ignored)" if entry.startswith("!!") else ""))
        if entry[0] in "RC":  # a rename names its source next
            next(entries, None)
    return tuple(paths)


def _snapshot(worktree: Path, head: str, dirty: bool) -> str:
    """A commit of the worktree's files as they are, made through a throwaway index."""
    if not dirty:
        return head
    with tempfile.TemporaryDirectory(prefix="gemtui-bring-back-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _out(["read-tree", head], worktree, env=env)
        _out(["add", "--all", "--", "."], worktree, env=env)
        tree = _out(["write-tree"], worktree, env=env)
    ident = {
        "GIT_AUTHOR_NAME": "gemtui",
        "GIT_AUTHOR_EMAIL": "gemtui@localhost",
        "GIT_COMMITTER_NAME": "gemtui",
        "GIT_COMMITTER_EMAIL": "gemtui@localhost",
    }
    message = f"Uncommitted work of the worktree {worktree.name}"
    return _out(["commit-tree", tree, "-p", head, "-m", message], worktree, env=ident)


def work_diff(worktree: Path, base: str | None = None) -> WorkDiff:
    """The worktree's work against ``base`` (a branch or commit; None: the main
    checkout's current HEAD): committed, uncommitted and untracked, as one unified diff.

    The diff starts where the worktree's history left ``base`` (their merge base), so a
    ``base`` branch that moved on since does not show up as the agent undoing it.
    """
    top, project = _top(worktree)
    head = _commit("HEAD", top)
    start = _commit(base, top) if base is not None else _commit("HEAD", project)
    fork = _git(["merge-base", start, head], top)
    fork_point = fork.stdout.strip() if fork.returncode == 0 else start
    uncommitted = _status(top)
    snapshot = _snapshot(top, head, bool(uncommitted))
    diff_args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames"]
    diff = _git([*diff_args, fork_point, snapshot, "--"], top)
    if diff.returncode != 0:
        raise BringBackError(f"git diff failed in {top}: {_said(diff)}")
    names = _out(["diff", "--name-only", "-z", fork_point, snapshot, "--"], top)
    branch = _git(["symbolic-ref", "--quiet", "--short", "HEAD"], top).stdout.strip() or None
    commits = int(_out(["rev-list", "--count", f"{fork_point}..{head}"], top) or "0")
    return WorkDiff(
        worktree=top,
        project=project,
        branch=branch,
        base=fork_point,
        head=head,
        snapshot=snapshot,
        diff=diff.stdout,
        files=tuple(n for n in names.split("\0") if n),
        uncommitted=uncommitted,
        commits=commits,
    )


def _conflicts(project: Path, ours: str, theirs: str) -> tuple[str, ...]:
    proc = _git(
        ["merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs], project
    )
    if proc.returncode == 0:
        return ()
    if proc.returncode != 1:
        raise BringBackError(f"git merge-tree failed in {project}: {_said(proc)}")
    return tuple(line for line in proc.stdout.splitlines()[1:] if line)


def merge(work: WorkDiff) -> str:
    """Merge the work into the main checkout's current branch; the new HEAD commit.

    Nothing is half-applied: the merge is computed first without touching any checkout,
    and a conflict raises ``MergeConflictError`` naming the files. Local changes in the
    main checkout that the merge would overwrite make git refuse before writing anything.
    """
    project = work.project
    ours = _commit("HEAD", project)
    if _git(["merge-base", "--is-ancestor", work.snapshot, ours], project).returncode == 0:
        raise BringBackError("nothing to merge: the main checkout already has this work")
    conflicts = _conflicts(project, ours, work.snapshot)
    if conflicts:
        raise MergeConflictError(
            f"merging would conflict in {', '.join(conflicts)}; nothing was changed",
            conflicts,
        )
    what = work.branch or work.head[:12]
    proc = _git(
        ["merge", "--no-ff", "--no-edit", "-m", f"Merge the work of {what}", work.snapshot],
        project,
    )
    if proc.returncode != 0:
        if _git(["rev-parse", "--verify", "--quiet", "MERGE_HEAD"], project).returncode == 0:
            _git(["merge", "--abort"], project)
        raise BringBackError(f"the merge was refused, nothing was changed: {_said(proc)}")
    return _commit("HEAD", project)


def keep(work: WorkDiff) -> str:
    """Leave the worktree and its branch as they are; where to find them again."""
    on = f" (branch {work.branch})" if work.branch else ""
    return f"kept: the worktree stays at {work.worktree}{on}"


def discard_plan(work: WorkDiff) -> DiscardPlan:
    """What discarding ``work`` would remove now, to be shown before it is confirmed."""
    top, project = _top(work.worktree)
    head = _commit("HEAD", top)
    ours = _commit("HEAD", project)
    log = _out(["log", "--format=%h %s", head, "--not", ours, "--"], top)
    branch = _git(["symbolic-ref", "--quiet", "--short", "HEAD"], top).stdout.strip() or None
    unmerged = tuple(line for line in log.splitlines() if line)
    return DiscardPlan(top, branch, head, unmerged, _status(top, ignored=True))


def discard(work: WorkDiff, *, uncommitted: bool = False, plan: DiscardPlan | None = None) -> str:
    """Remove the worktree and its branch; what was removed.

    Uncommitted, untracked or git-ignored files (an ``.env``, notes: ``git worktree
    remove`` deletes ignored ones without a word) are deleted only with
    ``uncommitted=True`` (a second, explicit yes); without it ``UncommittedWorkError``
    names them and nothing goes. With ``plan`` (what the person confirmed, its files
    included) the worktree is read again first: anything else in it by now (a file, a
    commit) raises ``WorkChangedError`` with the new plan, and nothing goes.
    """
    top, project = _top(work.worktree)
    if top == project:
        raise BringBackError(f"{top} is the main checkout, not an agent's worktree")
    if plan is not None:
        now = discard_plan(work)
        if now != plan:
            raise WorkChangedError(_changed(plan, now), now)
        uncommitted = True  # the files were named in the question the person confirmed
    dirty = _status(top, ignored=True)
    if dirty and not uncommitted:
        raise UncommittedWorkError(
            f"the worktree has uncommitted work in {', '.join(dirty)}: discarding deletes it",
            dirty,
        )
    force = ["--force"] if dirty else []
    proc = _git(["worktree", "remove", *force, str(top)], project)
    if proc.returncode != 0:
        raise BringBackError(f"the worktree could not be removed: {_said(proc)}")
    said = f"discarded the worktree {top}"
    if work.branch:
        gone = _git(["branch", "-D", "--", work.branch], project)
        if gone.returncode != 0:
            return f"{said}; the branch {work.branch} stays: {_said(gone)}"
        said += f" and its branch {work.branch}"
    return said


def _changed(asked: DiscardPlan, now: DiscardPlan) -> str:
    """What differs from the confirmed plan, in one sentence."""
    news = [f for f in now.files if f not in asked.files]
    news += [c for c in now.unmerged if c not in asked.unmerged]
    what = f": new {', '.join(news)}" if news else ""
    return f"the worktree changed since you confirmed{what}; nothing was discarded"
