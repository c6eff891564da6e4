"""Agents side by side in the TUI: the agent view, its counts, the front agent, the one
approval queue across agents, and attention when a background agent needs you.

Every agent is a real session on its own mock model server (``agent_fleet``); approvals
run real shell commands, so "the decision reached only that agent" is a file that exists
in one workspace and not in the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.agent_rows import AgentFleet, AgentRequest, RowsChanged
from gemtui.tui.fleet_desk import AgentsNews
from gemtui.tui.screens.agents import AgentsScreen, NewAgentScreen
from gemtui.tui.screens.main import MainScreen
from gemtui.tui.widgets.row_table import RowTable
from tests.tui.agent_fleet import STARTED, SessionsFleet
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, transcript_notices, turns_done


def _shell(command: str, call_id: str = "c1") -> dict[str, Any]:
    """A model step asking for one shell command (the same id in every agent: ids collide)."""
    return {
        "function_calls": [
            {"name": "run_shell_command", "args": {"command": command}, "id": call_id}
        ]
    }


def _said(app: Any) -> str:
    """Every prompt and answer the transcript shows."""
    return "\n".join(text for _, text in app.main.transcript.messages())


def _title(app: Any) -> str:
    """The queue's title and, for a background agent's call, its label line."""
    queue = app.main.approvals
    label = [str(w.content) for w in queue.query(".preview-agent").results(Static)]
    return " ".join([str(queue.query_one("#approval-title", Static).content), *label])


@pytest.fixture
def pinned_view_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The view counts elapsed time from ``STARTED``: one minute and five seconds later."""
    monkeypatch.setattr(AgentsScreen, "clock", staticmethod(lambda: STARTED + 65))


async def _rows_settle(seen: Messages, fleet: AgentFleet, want: dict[str, str]) -> None:
    """Until the app has applied news in which each agent has the wanted state."""

    def done(message: Any) -> bool:
        if not isinstance(message, AgentsNews) or not isinstance(message.news, RowsChanged):
            return False
        states = {row.id: row.state for row in fleet.rows()}
        return all(states.get(k) == v for k, v in want.items())

    await seen.wait_for(done)


async def test_the_view_lists_every_agent_with_its_state_and_the_status_line_counts(
    workspace: Path, pinned_view_clock: None
) -> None:
    async with MockLLMServer() as front, MockLLMServer() as asks, MockLLMServer() as answers:
        asks.enqueue(_shell("touch asked"), {"text": "ok"})
        answers.enqueue({"text": "All tests pass."})
        (workspace / "b").mkdir()
        (workspace / "c").mkdir()
        app = make_app(make_session(front.url, workspace), workspace)
        seen = Messages()
        async with app.run_test(size=(140, 36), message_hook=seen) as pilot:
            await pilot.pause()
            assert app.main.status.agents == ""  # one agent in front: nothing to count
            await pilot.press("f5")
            assert isinstance(app.screen, MainScreen)  # no fleet: no view, a line says why
            fleet = SessionsFleet()
            assert app.session is not None
            fleet.adopt(app.session, "the front one")
            b = fleet.adopt(make_session(asks.url, workspace / "b"), "write the tests", where="~/b")
            c = fleet.adopt(
                make_session(answers.url, workspace / "c"), "run the suite", where="~/c"
            )
            app.attach_fleet(fleet)
            fleet.run(b, "write the tests")
            fleet.run(c, "run the suite")
            await _rows_settle(seen, fleet, {b: "waiting", c: "done"})
            await pilot.pause()
            assert app.main.status.agents == "agents 0 working · 1 waits for you"
            await pilot.press("f5")
            screen = app.screen
            assert isinstance(screen, AgentsScreen)
            header = str(screen.query_one("#agents-header", Static).content)
            assert header == "Agents: 3 · 0 working · 1 waiting for you"
            table = screen.query_one("#agents-table", RowTable)
            cells = [[c.plain for c in table.cells(i)] for i in range(table.row_count)]
            assert [r[1] for r in cells] == ["○ idle", "? waiting for you", "✓ done"]
            assert cells[2][0].strip() == "run the suite"
            assert cells[2][3] == "1m05s"
            assert cells[2][6] == "~/c"
            await pilot.press("escape")
            assert isinstance(app.screen, MainScreen)
            app.run_slash("/agents")  # the slash command (and the palette's entry) opens it too
            await pilot.pause()
            assert isinstance(app.screen, AgentsScreen)
            await pilot.press("escape")
            app.run_slash("/agents list")  # the subagent definitions, as before
            await pilot.pause()
            assert isinstance(app.screen, MainScreen)
            assert any("Agents (the model delegates" in n for n in transcript_notices(app))
            fleet.stop(b)
            await fleet.settled()


async def test_a_background_agents_call_is_decided_from_the_queue_and_reaches_only_it(
    workspace: Path,
) -> None:
    """Two background agents ask for the same command with the same call id at once: both
    are in the queue, labelled; allowing one runs it in that agent's workspace only."""
    async with MockLLMServer() as front, MockLLMServer() as one, MockLLMServer() as two:
        one.enqueue(_shell("touch ran"), {"text": "one done"})
        two.enqueue(_shell("touch ran"), {"text": "two done"})
        ws_one, ws_two = workspace / "one", workspace / "two"
        ws_one.mkdir()
        ws_two.mkdir()
        app = make_app(make_session(front.url, workspace), workspace)
        seen = Messages()
        async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
            fleet = SessionsFleet()
            assert app.session is not None
            fleet.adopt(app.session, "front")
            a_one = fleet.adopt(make_session(one.url, ws_one), "agent one", where="~/one")
            a_two = fleet.adopt(make_session(two.url, ws_two), "agent two", where="~/two")
            app.attach_fleet(fleet)
            fleet.run(a_one, "go")
            fleet.run(a_two, "go")
            await seen.wait_approvals(2)
            await _rows_settle(seen, fleet, {a_one: "waiting", a_two: "waiting"})
            queue = app.main.approvals
            assert len(queue.pending()) == 2  # same call id, two agents: two entries
            labels = {"agent 'agent one' in ~/one", "agent 'agent two' in ~/two"}
            first = next(label for label in labels if label in _title(app))
            await pilot.press("f8", "a")
            await _rows_settle(seen, fleet, {a_one if "one" in first else a_two: "done"})
            decided = a_one if "one" in first else a_two
            other = a_two if decided == a_one else a_one
            assert fleet.decided[0][0] == decided
            assert (fleet.session_of(decided).workspace.root / "ran").exists()
            assert not (fleet.session_of(other).workspace.root / "ran").exists()
            assert [r.state for r in fleet.rows() if r.id == other] == ["waiting"]
            assert len(queue.pending()) == 1
            assert (labels - {first}).pop() in _title(app)
            # the control: the same command, allowed for the other agent, does run
            await pilot.press("a")
            await _rows_settle(seen, fleet, {other: "done"})
            assert (fleet.session_of(other).workspace.root / "ran").exists()
            assert [d[0] for d in fleet.decided] == [decided, other]


async def test_bringing_an_agent_to_the_front_and_back(workspace: Path) -> None:
    async with MockLLMServer() as front, MockLLMServer() as back:
        back.enqueue({"text": "The bug is in parse()."})
        front.enqueue({"text": "Front answer."})
        (workspace / "b").mkdir()
        app = make_app(make_session(front.url, workspace), workspace)
        seen = Messages()
        async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
            fleet = SessionsFleet()
            assert app.session is not None
            first = app.session
            a1 = fleet.adopt(first, "front")
            b = fleet.adopt(
                make_session(back.url, workspace / "b", model="gemini-2.5-pro"), "find the bug"
            )
            app.attach_fleet(fleet)
            fleet.run(b, "find the bug")
            await _rows_settle(seen, fleet, {b: "done"})
            await pilot.press("f5", "down", "enter")
            assert isinstance(app.screen, MainScreen)
            assert app.session is fleet.session_of(b)
            assert fleet.front_id == b
            assert app.main.status.model == "gemini-2.5-pro"
            await pilot.pause()
            shown = _said(app)
            assert "find the bug" in shown
            assert "The bug is in parse()." in shown
            await pilot.press("f5", "up", "enter")
            assert app.session is first
            assert fleet.front_id == a1
            assert app.main.status.model == "gemini-2.5-flash"
            await pilot.press(*"hi", "enter")  # the prompt now reaches the front agent's session
            await seen.wait_event(AgentFinished)
            assert "Front answer." in _said(app)


def _capture(app: Any) -> list[str]:
    """What the app writes to the terminal besides its frames."""
    written: list[str] = []
    assert app.desk is not None
    app.desk._write = written.append
    return written


@pytest.mark.parametrize("on", [True, False])
async def test_attention_when_a_background_agent_needs_you_or_finishes(
    workspace: Path, on: bool
) -> None:
    """A line in the view, the bell, OSC 9 and OSC 777 — each off when switched off. The
    task text goes into the sequences with its control characters taken out."""
    settings = Settings.model_validate(
        {"general": {"enableNotifications": on, "terminalBell": on, "attention_lines": on}}
    )
    async with MockLLMServer() as front, MockLLMServer() as back:
        back.enqueue(_shell("true"), {"text": "done"})
        (workspace / "b").mkdir()
        app = make_app(make_session(front.url, workspace), workspace)
        app.controller.settings = settings
        seen = Messages()
        async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
            fleet = SessionsFleet()
            assert app.session is not None
            fleet.adopt(app.session, "front")
            task = "fix it\x1b]52;c;ZXZpbA==\a now"
            b = fleet.adopt(make_session(back.url, workspace / "b"), task)
            app.attach_fleet(fleet)
            written = _capture(app)
            fleet.run(b, "fix it")
            await _rows_settle(seen, fleet, {b: "waiting"})
            await pilot.press("f8", "a")
            await _rows_settle(seen, fleet, {b: "done"})
            await pilot.pause()
            assert app.desk is not None
            if not on:
                assert written == []
                assert app.desk.lines == []
                return
            body = "fix it ]52,c,ZXZpbA==  now"
            assert written == [
                "\a\x1b]9;gemtui: agent waits for you: fix it ]52;c;ZXZpbA==  now\a"
                f"\x1b]777;notify;gemtui: agent waits for you;{body}\a",
                "\a\x1b]9;gemtui: agent is done: fix it ]52;c;ZXZpbA==  now\a"
                f"\x1b]777;notify;gemtui: agent is done;{body}\a",
            ]
            assert [line.split(":")[1].strip() for line in app.desk.lines] == [
                "agent waits for you",
                "agent is done",
            ]
            await pilot.press("f5")
            lines = str(app.screen.query_one("#agents-lines", Static).content)
            assert "gemtui: agent is done: fix it" in lines


async def test_start_stop_remove_and_the_limit_line(workspace: Path) -> None:
    async with MockLLMServer() as front, MockLLMServer() as other:
        other.enqueue(_shell("sleep 0"), {"text": "done"})
        app = make_app(make_session(front.url, workspace), workspace)
        seen = Messages()

        def factory(request: AgentRequest) -> Any:
            made.append(request)
            (workspace / "n").mkdir(exist_ok=True)
            return make_session(other.url, workspace / "n")

        made: list[AgentRequest] = []
        async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
            fleet = SessionsFleet(factory, max_parallel=1)
            assert app.session is not None
            fleet.adopt(app.session, "front")
            app.attach_fleet(fleet)
            await pilot.press("f5", "n")
            assert isinstance(app.screen, NewAgentScreen)
            await pilot.press(*"draft", "escape")  # cancelled: what was typed is kept
            await pilot.press("n")
            await pilot.press(*" tests", "tab", *"m-x", "tab", "space", "enter")
            assert made == [AgentRequest("draft tests", "m-x", True)]
            assert isinstance(app.screen, AgentsScreen)
            await _rows_settle(seen, fleet, {"a2": "waiting"})
            await pilot.press("n", *"third", "enter")  # one already works: max_parallel 1
            await pilot.pause()
            lines = str(app.screen.query_one("#agents-lines", Static).content)
            assert "max_parallel = 1" in lines
            assert len(made) == 1
            await pilot.press("down", "x")  # a working agent is not removed
            assert [r.id for r in fleet.rows()] == ["a1", "a2"]
            await pilot.press("s")
            await _rows_settle(seen, fleet, {"a2": "cancelled"})
            await pilot.press("x")
            await pilot.pause()
            assert [r.id for r in fleet.rows()] == ["a1"]
            table = app.screen.query_one("#agents-table", RowTable)
            assert table.row_count == 1


async def test_the_engines_fleet_behind_the_view_new_agent_approval_and_bell(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The product path: the app's session is the engine fleet's first agent; a second one
    started from the view asks, is answered from the queue, finishes, and the bell rings."""
    from gemtui.agent.assembly import RunOptions
    from gemtui.store import SessionStore
    from gemtui.tui.fleet_adapter import EngineFleet
    from tests.integration.test_two_sessions_apart import _configure

    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    async with MockLLMServer() as front, MockLLMServer() as alpha:
        _configure(alpha.url, "http://127.0.0.1:9")
        alpha.enqueue(_shell("echo ran > ran.txt"), {"text": "written"})
        # started with --resume: a new agent still starts a conversation of its own
        options = RunOptions(workspace, provider="alpha", resume="latest")
        app = make_app(
            make_session(front.url, workspace), workspace, store=SessionStore(), run_options=options
        )
        seen = Messages()
        async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
            await pilot.pause()
            desk = app.desk
            assert desk is not None
            assert isinstance(desk.fleet, EngineFleet)
            assert [row.state for row in desk.rows] == ["idle"]
            written = _capture(app)
            await pilot.press("f5", "n", *"write ran", "enter")
            await seen.wait_approvals(1)
            await _rows_settle(seen, desk.fleet, {"a2": "waiting"})
            assert app.main.status.agents == "agents 0 working · 1 waits for you"
            started = desk.fleet.session_of("a2")
            assert started.id != app.session.id
            assert started.history[0].parts[0].text == "write ran"
            await pilot.press("escape")
            assert "agent 'write ran' in " in _title(app)
            assert not (workspace / "ran.txt").exists()
            await pilot.press("f8", "a")
            await _rows_settle(seen, desk.fleet, {"a2": "done"})
            assert (workspace / "ran.txt").read_text() == "ran\n"
            assert written == ["\a", "\a"]  # bell on, desktop notifications off by default
            assert app.main.status.agents == "agents 0 working"
            # the front agent's own prompt (run by the app, not the fleet) shows as its state
            front.enqueue(_shell("true"), {"text": "front done"})
            mark = len(seen.seen)
            await pilot.press(*"check", "enter")
            await seen.wait_approvals(1, after=mark)
            await pilot.press("f5")
            assert isinstance(app.screen, AgentsScreen)
            assert [r.state for r in desk.shown_rows()] == ["waiting", "done"]
            await pilot.press("escape", "f8", "a")
            await seen.wait_event(AgentFinished)
            await turns_done(app)
            assert [r.state for r in desk.shown_rows()] == ["idle", "done"]
            assert app.main.status.agents == "agents 0 working"
            # a start the fleet cannot honour is said in the view; nothing else starts
            await pilot.press("f5", "n", *"elsewhere", "tab", "tab", "space", "enter")
            lines = str(app.screen.query_one("#agents-lines", Static).content)
            assert "A new worktree cannot be made here" in lines
            assert [r.id for r in desk.shown_rows()] == ["a1", "a2"]
            engine = desk.fleet.fleet
        # quitting closes the background agents (the front one is the launcher's to close)
        assert [info.id for info in engine.agents()] == ["a1"]


async def test_a_prompt_typed_to_a_front_agent_still_working_waits_for_it(
    workspace: Path,
) -> None:
    """An agent started in the background and brought to the front is still in its own
    prompt: what the person types queues, never runs beside it, and goes once it ends."""
    async with MockLLMServer() as front, MockLLMServer() as back:
        back.enqueue(_shell("true"), {"text": "first done"}, {"text": "second answer"})
        (workspace / "b").mkdir()
        app = make_app(make_session(front.url, workspace), workspace)
        seen = Messages()
        async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
            fleet = SessionsFleet()
            assert app.session is not None
            fleet.adopt(app.session, "front")
            b = fleet.adopt(make_session(back.url, workspace / "b"), "background")
            app.attach_fleet(fleet)
            fleet.run(b, "first")
            await _rows_settle(seen, fleet, {b: "waiting"})
            await pilot.press("f5", "down", "enter")
            assert app.session is fleet.session_of(b)
            await pilot.press(*"second", "enter")
            assert list(app.queued) == ["second"]
            assert len(back.requests) == 1  # only the first prompt's call so far
            mark = len(seen.seen)
            await pilot.press("f8", "a")

            def both_finished(_: Any) -> bool:
                ends = [
                    m
                    for m in seen.seen[mark:]
                    if isinstance(getattr(m, "event", None), AgentFinished)
                ]
                return len(ends) == 2

            await seen.wait_for(both_finished, after=mark)
            await pilot.pause()
            assert list(app.queued) == []
            assert "second answer" in _said(app)


@pytest.mark.parametrize("press_escape", [True, False], ids=["escape", "control"])
async def test_escape_stops_a_front_agent_whose_prompt_the_fleet_runs(
    workspace: Path, press_escape: bool
) -> None:
    """An agent started in the background and brought to the front runs its prompt in the
    fleet, not in the app's turn worker: Esc must still stop it, and the call it waits on
    never runs. The control, without Esc: the same call, allowed, does run."""
    async with MockLLMServer() as front, MockLLMServer() as back:
        back.enqueue(_shell("touch planted"), {"text": "planted"})
        (workspace / "b").mkdir()
        app = make_app(make_session(front.url, workspace), workspace)
        seen = Messages()
        async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
            fleet = SessionsFleet()
            assert app.session is not None
            fleet.adopt(app.session, "front")
            b = fleet.adopt(make_session(back.url, workspace / "b"), "background")
            app.attach_fleet(fleet)
            fleet.run(b, "plant it")
            await _rows_settle(seen, fleet, {b: "waiting"})
            await pilot.press("f5", "down", "enter")
            assert app.session is fleet.session_of(b)
            assert not app.turn_running  # the app's own worker is not the one running it
            await pilot.press(*"typed meanwhile", "enter")
            assert list(app.queued) == ["typed meanwhile"]
            if press_escape:
                await pilot.press("escape")
                if app.main.prompt.text != "typed meanwhile":  # back in the box, never lost
                    fleet.session_of(b).cancel()  # not left waiting at tear-down
                    pytest.fail("Esc did not stop the front agent the fleet runs")
                await _rows_settle(seen, fleet, {b: "cancelled"})
                await fleet.settled()
            else:
                await pilot.press("f8", "a")
                await _rows_settle(seen, fleet, {b: "done"})
            assert (workspace / "b" / "planted").exists() is not press_escape


async def test_the_command_palette_opens_the_agent_view(workspace: Path) -> None:
    from textual.command import CommandList, CommandPalette

    async with MockLLMServer() as front:
        app = make_app(make_session(front.url, workspace), workspace)
        async with app.run_test(size=(140, 40)) as pilot:
            fleet = SessionsFleet()
            assert app.session is not None
            fleet.adopt(app.session, "front")
            app.attach_fleet(fleet)
            await pilot.press("ctrl+p")
            assert isinstance(app.screen, CommandPalette)
            await pilot.press(*"gemtui: agents")
            hits = app.screen.query_one(CommandList)
            while not any("agents" in str(o.prompt) for o in hits.options):
                await pilot.pause()  # the palette searches in a worker: a frame at a time
            await pilot.press("down", "enter")
            await pilot.pause()
            assert isinstance(app.screen, AgentsScreen)


async def test_a_new_agent_in_a_new_worktree_works_there(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "In a new worktree" makes one with ``-w``'s machinery (real git): the agent's
    command runs in it, the project's own folder is untouched, and the row shows the
    worktree and its branch."""
    import subprocess

    from gemtui.agent.assembly import RunOptions
    from gemtui.cli.worktree import open_worktree
    from gemtui.store import SessionStore
    from tests.integration.test_two_sessions_apart import _configure

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (workspace / "README").write_text("hi\n")
    git("add", "README")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")

    def new_worktree(project: Path, task: str) -> tuple[Path, str]:
        made = open_worktree(project, None)
        return made.path, made.branch

    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    async with MockLLMServer() as front, MockLLMServer() as alpha:
        _configure(alpha.url, "http://127.0.0.1:9")
        alpha.enqueue(_shell("echo ran > ran.txt"), {"text": "written"})
        options = RunOptions(workspace, provider="alpha")
        app = make_app(
            make_session(front.url, workspace), workspace, store=SessionStore(), run_options=options
        )
        app.open_worktree = new_worktree
        seen = Messages()
        async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
            await pilot.pause()
            desk = app.desk
            assert desk is not None
            await pilot.press("f5", "n", *"write ran", "tab", "tab", "space", "enter")
            await _rows_settle(seen, desk.fleet, {"a2": "waiting"})
            (row,) = [r for r in desk.shown_rows() if r.id == "a2"]
            assert row.branch is not None
            assert row.branch.startswith("worktree-")
            place = desk.fleet.session_of("a2").workspace.root
            assert place.parent == (workspace / ".gemini" / "worktrees").resolve()
            await pilot.press("escape", "f8", "a")
            await _rows_settle(seen, desk.fleet, {"a2": "done"})
            assert (place / "ran.txt").read_text() == "ran\n"
            assert not (workspace / "ran.txt").exists()
            # the work comes back from the view: its diff against where it started
            from gemtui.tui.screens.bring_back import BringBackScreen
            from gemtui.tui.widgets.diff_view import DiffView
            from tests.tui.test_bring_back_screen import _git_done

            await pilot.press("f5")
            await pilot.pause()
            table = app.screen.query_one("#agents-table", RowTable)
            table.move_cursor(row=table.row_index("a2"))
            await pilot.press("b")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, BringBackScreen)
            assert screen.worktree.resolve() == place
            await _git_done(screen)
            await pilot.pause()
            assert "+ran" in screen.query_one(DiffView).diff


async def test_a_folder_or_model_that_looks_like_markup_is_listed_as_written(
    workspace: Path,
) -> None:
    """The table reads a ``str`` cell as Rich markup: a folder named ``[/x]`` stopped the
    view, and ``[bold]`` vanished. Each cell is shown as written (issue 36), on one line."""
    async with MockLLMServer() as front:
        (workspace / "b").mkdir()
        app = make_app(make_session(front.url, workspace), workspace)
        async with app.run_test(size=(140, 36)) as pilot:
            await pilot.pause()
            fleet = SessionsFleet()
            assert app.session is not None
            fleet.adopt(app.session, "the front one")
            odd = make_session(front.url, workspace / "b")
            fleet.adopt(odd, "odd\tone\nover lines", where="~/[bold]b[/x]")
            app.attach_fleet(fleet)
            await pilot.press("f5")
            await pilot.pause()
            assert isinstance(app.screen, AgentsScreen)
            table = app.screen.query_one("#agents-table", RowTable)
            cells = [[c.plain for c in table.cells(i)] for i in range(table.row_count)]
            assert cells[1][6] == "~/[bold]b[/x]"
            # a task over lines is one row: its later columns are not pushed out
            assert cells[1][0].strip() == "odd one over lines"
            assert "~/[bold]b[/x]" in table.render_line(2).text
            assert "[bold]b[/x]" in app.export_screenshot()
