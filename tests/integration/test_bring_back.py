"""Bringing an agent's work back from its worktree, with real git worktrees.

Each guard has its control beside it: the plain git command the guard stands in front of
really does the harm (misses untracked files, leaves a half-applied merge, deletes
uncommitted work).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gemtui.worktrees import (
    BringBackError,
    MergeConflictError,
    UncommittedWorkError,
    WorkChangedError,
    discard,
    discard_plan,
    keep,
    merge,
    work_diff,
)
from tests.support.git_worktrees import checkout_state, git, make_repo


def test_diff_holds_commits_uncommitted_and_untracked_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    wt = repo.worktree
    (wt / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    git(wt, "commit", "-q", "-am", "committed change")
    (wt / "README").write_text("hello\nworld\n", encoding="utf-8")  # unstaged
    (wt / "notes.txt").write_text("brand new\n", encoding="utf-8")  # untracked
    index_before = git(wt, "diff", "--cached", "--name-only")

    work = work_diff(wt, repo.base)

    assert set(work.files) == {"app.py", "README", "notes.txt"}
    assert "+    return 2" in work.diff
    assert "+world" in work.diff
    assert "+brand new" in work.diff
    assert work.diff.startswith("diff --git a/")  # the unified form the diff view parses
    assert work.commits == 1
    assert work.branch == repo.branch
    assert set(work.uncommitted) == {"README", "notes.txt"}
    # reading the work moved nothing: the worktree's index and branch are as they were
    assert git(wt, "diff", "--cached", "--name-only") == index_before
    assert "notes.txt" in git(wt, "status", "--porcelain")
    # control: the plain diff against the base misses the untracked file
    assert "notes.txt" not in git(wt, "diff", repo.base)


def test_diff_from_where_the_worktree_left_a_base_that_moved_on(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.main / "later.txt").write_text("main moved on\n", encoding="utf-8")
    git(repo.main, "add", "later.txt")
    git(repo.main, "commit", "-q", "-m", "later")
    (repo.worktree / "mine.txt").write_text("agent\n", encoding="utf-8")

    assert work_diff(repo.worktree, repo.base).files == ("mine.txt",)
    assert work_diff(repo.worktree).files == ("mine.txt",)  # base: the main checkout's HEAD


def test_bad_base_and_non_worktree_are_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with pytest.raises(BringBackError, match="is not a commit"):
        work_diff(repo.worktree, "--output=/tmp/x")
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(BringBackError, match="not in a git worktree"):
        work_diff(plain, "main")


def test_clean_merge_lands_committed_and_uncommitted_work(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    wt = repo.worktree
    (wt / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    git(wt, "commit", "-q", "-am", "agent's commit")
    (wt / "notes.txt").write_text("untracked\n", encoding="utf-8")
    before = git(repo.main, "rev-parse", "HEAD").strip()

    head = merge(work_diff(wt, repo.base))

    assert head != before
    assert git(repo.main, "rev-parse", "HEAD").strip() == head
    assert (repo.main / "app.py").read_text(encoding="utf-8").endswith("return 2\n")
    assert (repo.main / "notes.txt").read_text(encoding="utf-8") == "untracked\n"
    assert git(repo.main, "status", "--porcelain") == ""
    assert git(repo.main, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    # the worktree's own branch did not move and its file is still untracked there
    assert git(wt, "log", "-1", "--format=%s").strip() == "agent's commit"
    assert "?? notes.txt" in git(wt, "status", "--porcelain")


def test_merge_brings_what_was_shown_not_what_was_written_since(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "shown.txt").write_text("seen by the person\n", encoding="utf-8")
    work = work_diff(repo.worktree, repo.base)
    (repo.worktree / "later.txt").write_text("written after the diff was shown\n", "utf-8")

    merge(work)

    assert (repo.main / "shown.txt").exists()
    assert not (repo.main / "later.txt").exists()
    # control: the later file is really part of the worktree's work now
    assert "later.txt" in work_diff(repo.worktree, repo.base).files


def test_merge_conflict_names_the_file_and_leaves_main_untouched(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    (repo.worktree / "new.txt").write_text("agent\n", encoding="utf-8")
    (repo.main / "app.py").write_text("def f():\n    return 3\n", encoding="utf-8")
    git(repo.main, "commit", "-q", "-am", "main's change")
    (repo.main / "scratch.txt").write_text("the person's own untracked file\n", encoding="utf-8")
    before = checkout_state(repo.main)
    work = work_diff(repo.worktree, repo.base)

    with pytest.raises(MergeConflictError) as caught:
        merge(work)

    assert caught.value.files == ("app.py",)
    assert "app.py" in str(caught.value)
    assert checkout_state(repo.main) == before
    assert not (repo.main / "new.txt").exists()

    # control: the plain merge of the same work leaves the checkout half-applied
    proc = subprocess.run(
        ["git", "merge", "--no-edit", work.snapshot],
        cwd=repo.main,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert checkout_state(repo.main) != before
    assert "<<<<<<<" in (repo.main / "app.py").read_text(encoding="utf-8")


def test_merge_refused_by_local_changes_changes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    (repo.main / "app.py").write_text("def f():\n    return 'typed, not saved'\n", encoding="utf-8")
    before = checkout_state(repo.main)

    with pytest.raises(BringBackError, match="nothing was changed"):
        merge(work_diff(repo.worktree, repo.base))

    assert checkout_state(repo.main) == before


def test_keep_leaves_worktree_and_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "notes.txt").write_text("wip\n", encoding="utf-8")

    said = keep(work_diff(repo.worktree, repo.base))

    assert str(repo.worktree) in said
    assert repo.branch in said
    assert (repo.worktree / "notes.txt").exists()
    assert repo.branch in git(repo.main, "branch", "--list", repo.branch)


def test_discard_refuses_uncommitted_work_without_the_second_yes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "notes.txt").write_text("only copy\n", encoding="utf-8")
    work = work_diff(repo.worktree, repo.base)

    with pytest.raises(UncommittedWorkError) as caught:
        discard(work)

    assert caught.value.files == ("notes.txt",)
    assert (repo.worktree / "notes.txt").read_text(encoding="utf-8") == "only copy\n"
    assert repo.branch in git(repo.main, "branch", "--list", repo.branch)

    said = discard(work, uncommitted=True)

    assert not repo.worktree.exists()
    assert git(repo.main, "branch", "--list", repo.branch) == ""
    assert repo.branch in said


def test_control_plain_forced_removal_deletes_uncommitted_work(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "notes.txt").write_text("only copy\n", encoding="utf-8")
    git(repo.main, "worktree", "remove", "--force", str(repo.worktree))
    assert not (repo.worktree / "notes.txt").exists()


def test_discard_names_ignored_files_before_deleting_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / ".gitignore").write_text(".env\n.gemini/\n", encoding="utf-8")
    git(repo.worktree, "add", ".gitignore")
    git(repo.worktree, "commit", "-q", "-m", "ignore .env")
    (repo.worktree / ".env").write_text("TOKEN=only-copy\n", encoding="utf-8")
    work = work_diff(repo.worktree, repo.base)
    assert work.uncommitted == ()  # not part of the work that merges

    with pytest.raises(UncommittedWorkError) as caught:
        discard(work)

    assert caught.value.files == (".env (ignored)",)
    assert (repo.worktree / ".env").exists()


def test_control_plain_removal_deletes_ignored_files_silently(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / ".gitignore").write_text(".env\n.gemini/\n", encoding="utf-8")
    git(repo.worktree, "add", ".gitignore")
    git(repo.worktree, "commit", "-q", "-m", "ignore .env")
    (repo.worktree / ".env").write_text("TOKEN=only-copy\n", encoding="utf-8")
    git(repo.main, "worktree", "remove", str(repo.worktree))  # no --force: git says nothing
    assert not (repo.worktree / ".env").exists()


def test_discard_of_clean_worktree_removes_it_and_its_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    git(repo.worktree, "commit", "-q", "-am", "agent's commit")

    discard(work_diff(repo.worktree, repo.base))

    assert not repo.worktree.exists()
    assert git(repo.main, "branch", "--list", repo.branch) == ""
    assert git(repo.main, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_discard_never_removes_the_main_checkout(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with pytest.raises(BringBackError, match="main checkout"):
        discard(work_diff(repo.main, "main"), uncommitted=True)
    assert (repo.main / "app.py").exists()


def test_discard_plan_names_the_branch_unmerged_commits_and_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    git(repo.worktree, "commit", "-q", "-am", "the agent's fix")
    (repo.worktree / "notes.txt").write_text("only copy\n", encoding="utf-8")

    plan = discard_plan(work_diff(repo.worktree, repo.base))

    assert plan.branch == repo.branch
    assert [c.split(" ", 1)[1] for c in plan.unmerged] == ["the agent's fix"]
    assert plan.files == ("notes.txt",)
    shown = plan.describe()
    for item in (str(repo.worktree), repo.branch, "the agent's fix", "notes.txt"):
        assert item in shown


@pytest.mark.parametrize("late", ["file", "commit"])
def test_discard_of_a_confirmed_plan_spares_what_appeared_since(tmp_path: Path, late: str) -> None:
    """The person confirmed a list; a file (or a commit) that appeared after it is not
    deleted unseen: nothing goes, and the new plan names it for the next question."""
    repo = make_repo(tmp_path)
    (repo.worktree / "notes.txt").write_text("confirmed\n", encoding="utf-8")
    work = work_diff(repo.worktree, repo.base)
    plan = discard_plan(work)
    (repo.worktree / "late.txt").write_text("written after the yes\n", encoding="utf-8")
    if late == "commit":
        git(repo.worktree, "add", "late.txt")
        git(repo.worktree, "commit", "-q", "-m", "late commit")

    with pytest.raises(WorkChangedError, match="late") as caught:
        discard(work, plan=plan)

    assert (repo.worktree / "late.txt").exists()
    assert (repo.worktree / "notes.txt").exists()
    assert repo.branch in git(repo.main, "branch", "--list", repo.branch)
    assert "late" in caught.value.plan.describe()
    # asked again and confirmed: exactly the new plan goes
    discard(work, plan=caught.value.plan)
    assert not repo.worktree.exists()
    assert git(repo.main, "branch", "--list", repo.branch) == ""


def test_control_an_unguarded_discard_deletes_the_late_file(tmp_path: Path) -> None:
    """Without the confirmed plan, the second yes covers whatever is there by then."""
    repo = make_repo(tmp_path)
    (repo.worktree / "notes.txt").write_text("confirmed\n", encoding="utf-8")
    work = work_diff(repo.worktree, repo.base)
    (repo.worktree / "late.txt").write_text("written after the yes\n", encoding="utf-8")
    discard(work, uncommitted=True)
    assert not (repo.worktree / "late.txt").exists()
