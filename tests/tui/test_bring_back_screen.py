"""The bring-back screen with real git worktrees: the diff, then merge, keep and discard,
each confirmed; a conflict is shown by file and leaves the main checkout as it was;
uncommitted work is deleted only after a second, named confirmation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList, Static

from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.bring_back import BringBackOutcome, BringBackScreen
from gemtui.tui.screens.dialogs import ConfirmScreen
from gemtui.tui.widgets.diff_view import DiffView
from tests.support.git_worktrees import Repo, checkout_state, git, make_repo
from tests.tui.conftest import make_app, make_session


async def _git_done(screen: BringBackScreen) -> None:
    """Wait for the screen's git work (its workers' group), not the session's workers."""
    mine = [w for w in screen.app.workers if w.group == "bring-back"]
    if mine:  # an empty list would wait for every worker of the app
        await screen.app.workers.wait_for_complete(mine)


async def _open(app: Any, pilot: Any, repo: Repo, results: list[BringBackOutcome | None]) -> Any:
    app.push_screen(BringBackScreen(repo.worktree, repo.base), results.append)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, BringBackScreen)
    await _git_done(screen)
    await pilot.pause()
    return screen


async def _choose(pilot: Any, screen: BringBackScreen, option: str) -> None:
    choices = screen.query_one("#bring-back-choices", OptionList)
    choices.highlighted = choices.get_option_index(option)
    await pilot.press("enter")
    await pilot.pause()
    await _git_done(screen)  # a discard first reads its plan in the screen's git worker
    await pilot.pause()


async def _answer(pilot: Any, app: Any, key: str, screen: BringBackScreen) -> None:
    assert isinstance(app.screen, ConfirmScreen)
    await pilot.press(key)
    await pilot.pause()
    await _git_done(screen)
    await pilot.pause()


def _said(screen: BringBackScreen) -> str:
    return str(screen.query_one("#bring-back-said", Static).content)


async def test_diff_shown_and_merge_confirmed_lands_the_work(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    (repo.worktree / "notes.txt").write_text("untracked\n", encoding="utf-8")
    results: list[BringBackOutcome | None] = []
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(app, pilot, repo, results)
        view = screen.query_one(DiffView)
        assert "+untracked" in view.diff
        assert "+    return 2" in view.diff
        await _choose(pilot, screen, "merge")
        await _answer(pilot, app, "y", screen)
    assert results[0] is not None
    assert results[0].choice == "merged"
    assert (repo.main / "notes.txt").read_text(encoding="utf-8") == "untracked\n"
    assert git(repo.main, "status", "--porcelain") == ""


async def test_merge_declined_or_conflicting_leaves_main_as_it_was(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    (repo.main / "app.py").write_text("def f():\n    return 3\n", encoding="utf-8")
    git(repo.main, "commit", "-q", "-am", "main's change")
    before = checkout_state(repo.main)
    results: list[BringBackOutcome | None] = []
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(app, pilot, repo, results)
        await _choose(pilot, screen, "merge")
        await _answer(pilot, app, "n", screen)  # declined: nothing happens
        assert app.screen is screen
        assert checkout_state(repo.main) == before
        await _choose(pilot, screen, "merge")
        await _answer(pilot, app, "y", screen)
        assert app.screen is screen  # still open: keep or discard remain
        assert "conflict: app.py" in _said(screen)
    assert results == []
    assert checkout_state(repo.main) == before


async def test_keep_leaves_the_worktree(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "notes.txt").write_text("wip\n", encoding="utf-8")
    results: list[BringBackOutcome | None] = []
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(app, pilot, repo, results)
        await _choose(pilot, screen, "keep")
    assert results[0] is not None
    assert results[0].choice == "kept"
    assert (repo.worktree / "notes.txt").exists()
    assert repo.branch in git(repo.main, "branch", "--list", repo.branch)


async def test_discard_asks_again_for_uncommitted_work(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    (repo.worktree / "notes.txt").write_text("only copy\n", encoding="utf-8")
    results: list[BringBackOutcome | None] = []
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(app, pilot, repo, results)
        await _choose(pilot, screen, "discard")
        await _answer(pilot, app, "y", screen)  # the first yes
        second = app.screen
        assert isinstance(second, ConfirmScreen)
        assert any("notes.txt" in str(s.content) for s in second.query(Static))
        await _answer(pilot, app, "n", screen)  # no second yes: the work stays
        assert (repo.worktree / "notes.txt").read_text(encoding="utf-8") == "only copy\n"
        assert "uncommitted work is kept" in _said(screen)
        await _choose(pilot, screen, "discard")
        await _answer(pilot, app, "y", screen)
        await _answer(pilot, app, "y", screen)
    assert results[0] is not None
    assert results[0].choice == "discarded"
    assert not repo.worktree.exists()
    assert git(repo.main, "branch", "--list", repo.branch) == ""


def _shown(app: Any) -> str:
    return "\n".join(str(s.content) for s in app.screen.query(Static))


async def test_discard_names_exactly_what_goes_and_asks_again_when_it_changed(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    """The question lists the worktree, its branch, its unmerged commit and its files; a
    file that appears after the yes is not deleted unseen: the question comes again with
    it. The control: the discard the screen used before (no plan) deletes that file."""
    from gemtui.worktrees import discard

    repo = make_repo(tmp_path)
    (repo.worktree / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    git(repo.worktree, "commit", "-q", "-am", "the agent's fix")
    (repo.worktree / "notes.txt").write_text("only copy\n", encoding="utf-8")
    results: list[BringBackOutcome | None] = []
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(app, pilot, repo, results)
        await _choose(pilot, screen, "discard")
        await _git_done(screen)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        first = _shown(app)
        for item in (str(repo.worktree), repo.branch, "the agent's fix", "notes.txt"):
            assert item in first
        (repo.worktree / "late.txt").write_text("after the yes\n", encoding="utf-8")
        await _answer(pilot, app, "y", screen)
        assert "notes.txt" in _shown(app)
        assert "late.txt" not in _shown(app)
        await _answer(pilot, app, "y", screen)  # yes to the files named: not to late.txt
        assert (repo.worktree / "late.txt").exists()
        assert isinstance(app.screen, ConfirmScreen)  # asked again, the new file named
        assert "late.txt" in _shown(app)
        assert "changed" in _said(screen)
        await _answer(pilot, app, "n", screen)
        assert results == []
        assert repo.branch in git(repo.main, "branch", "--list", repo.branch)
        work = screen.work
    assert work is not None
    discard(work, uncommitted=True)  # the control: unguarded, it goes without a word
    assert not (repo.worktree / "late.txt").exists()


async def test_merge_question_names_settings_the_work_would_change(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    policy = repo.worktree / ".gemtui" / "policy.toml"
    policy.parent.mkdir()
    policy.write_text('[[rule]]\ntool = "run_shell_command"\ndecision = "allow"\n', "utf-8")
    (repo.worktree / "app.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(app, pilot, repo, [])
        await _choose(pilot, screen, "merge")
        question = app.screen
        assert isinstance(question, ConfirmScreen)
        shown = " ".join(str(s.content) for s in question.query(Static))
        assert "changes what gemtui runs" in shown
        assert ".gemtui/policy.toml" in shown
        assert "app.py" in shown  # control: every file is listed, the warning only for one
        assert "app.py" not in shown.partition("changes what gemtui runs")[2]
        await _answer(pilot, app, "n", screen)
    assert not (repo.main / ".gemtui").exists()


async def test_a_folder_that_is_no_worktree_is_said_and_offers_nothing(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    results: list[BringBackOutcome | None] = []
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(BringBackScreen(plain, "main"), results.append)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BringBackScreen)
        await _git_done(screen)
        await pilot.pause()
        assert "Cannot read the worktree" in _said(screen)
        choices = screen.query_one("#bring-back-choices", OptionList)
        assert all(choices.get_option_at_index(i).disabled for i in range(3))
        await pilot.press("escape")
        await pilot.pause()
    assert results == [None]
