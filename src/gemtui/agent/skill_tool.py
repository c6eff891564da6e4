"""The session's skills: named in the system instruction, opened by ``activate_skill``.

The tool asks like any tool that is not read-only (its kind is OTHER): its card shows the
skill, its description and the folder it opens. Once allowed, the body and the folder's
file list are the tool's result, and the folder becomes a read-only root of the
workspace, so the model can read the skill's references and scripts but never write
there (a skill must not be rewritten by the model it instructs). Disabled skills
(``[skills] disabled``) are neither named nor accepted.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from gemtui.agent.reload_hint import reload_hint
from gemtui.agent.skills import Skill, SkillSet, folder_listing, load_skills
from gemtui.bus import ErrorOccurred, Event, SessionStarted
from gemtui.bus.events import Confirmation
from gemtui.tools.base import Tool, ToolContext, ToolInvocation, ToolKind, ToolResult
from gemtui.tools.offload import run_off_loop
from gemtui.wire import FunctionDeclaration

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from gemtui.bus import EventBus
    from gemtui.extensions import Extension
    from gemtui.tools.registry import ToolRegistry

__all__ = ["ACTIVATE_SKILL", "ActivateSkillTool", "SessionSkills"]

log = logging.getLogger(__name__)

ACTIVATE_SKILL = "activate_skill"


class SessionSkills:
    """The skills of one session: found, enabled or not, and the tool that opens them."""

    def __init__(
        self,
        root: Path,
        bus: EventBus,
        registry: ToolRegistry,
        *,
        trusted: bool,
        extensions: list[Extension],
        disabled: Iterable[str] = (),
        excluded: bool = False,
        later: bool = False,
        interactive: bool = True,
    ) -> None:
        """Skills of the folder ``root`` (its own only when ``trusted``) and of
        ``extensions``; ``activate_skill`` goes into ``registry`` unless ``excluded``
        (``[tools] exclude``) or no skill is enabled. ``later``: the folders are read by
        ``find_later``, not now; ``interactive``: a warning's hint names ``/skills reload``
        (headless has no slash commands)."""
        self.root = root
        self.interactive = interactive
        self.bus = bus
        self.registry = registry
        self.trusted = trusted
        self.extensions = extensions
        self.excluded = excluded
        self.found = SkillSet()
        self.disabled: set[str] = set(disabled)
        self._later = later
        self._finding: asyncio.Task[None] | None = None
        if not later:
            self.load()
        bus.subscribe(self._started)

    def _started(self, event: Event) -> None:
        """The session began: the front end hears of the SKILL.md files that did not load."""
        if isinstance(event, SessionStarted) and not event.parent_id:
            self.announce_problems()

    def find_later(self, found: Callable[[], None]) -> None:
        """Read the folders off the loop, once, if the session was built with ``later``:
        a person's first request leaves without waiting for the disk, and the skills join
        the requests after they are found (``found`` rebuilds the system instruction)."""
        if self._later and self._finding is None:
            self._finding = asyncio.get_running_loop().create_task(
                self._find(found), name="gemtui-skills"
            )

    async def wait_found(self) -> None:
        """Wait for the skills ``find_later`` is reading (at once when none are read)."""
        if self._finding is not None:
            await asyncio.shield(self._finding)

    async def _find(self, found: Callable[[], None]) -> None:
        def read(_token: object) -> SkillSet:
            return load_skills(self.root, trusted=self.trusted, extensions=self.extensions)

        try:
            self.found = await run_off_loop(read, name="gemtui-skills")
        except Exception:  # the skills are missing, not the session: /skills reload retries
            log.exception("the skills could not be read")
            return
        self._install()
        self.announce_problems()
        found()

    def reload(self) -> SkillSet:
        """Read the folders again and say what did not load (``/skills reload``)."""
        found = self.load()
        self.announce_problems()
        return found

    @property
    def enabled(self) -> dict[str, Skill]:
        return {n: s for n, s in self.found.skills.items() if n not in self.disabled}

    def load(self) -> SkillSet:
        """(Re)read the skill folders (``/skills reload``); the tool offers the enabled ones."""
        self.found = load_skills(self.root, trusted=self.trusted, extensions=self.extensions)
        self._install()
        return self.found

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Offer (or stop offering) ``name`` from the next request on."""
        (self.disabled.discard if enabled else self.disabled.add)(name)
        self._install()

    def _install(self) -> None:
        self.registry.unregister(ACTIVATE_SKILL)
        if self.enabled and not self.excluded:
            self.registry.register(ActivateSkillTool(self))

    def system_text(self) -> str:
        """The enabled skills' names and descriptions, for the system instruction."""
        skills = sorted(self.enabled.values(), key=lambda s: s.name)
        if not skills:
            return ""
        lines = [
            "# Skills",
            f"Skills are folders of expert instructions. When a task matches one, call "
            f"{ACTIVATE_SKILL} with its name first; its instructions and files then join the "
            "conversation. Available skills:",
        ]
        lines += [f"- {s.name}: {s.description}" for s in skills]
        return "\n".join(lines)

    def announce_problems(self) -> None:
        for problem in self.found.problems:
            self.bus.emit(
                ErrorOccurred,
                message=f"Skill not loaded: {problem}",
                kind="warning",
                hint=reload_hint("skills", interactive=self.interactive),
            )


class ActivateSkillTool(Tool):
    """``activate_skill {name}``: the named skill's body and files join the conversation."""

    name = ACTIVATE_SKILL
    display_name = "Activate skill"
    description = (
        "Activate one of the available skills (listed in the system instruction) by name: "
        "returns its instructions and the list of files in its folder, which you may then "
        "read. Activate a skill before doing a task it describes."
    )
    kind = ToolKind.OTHER

    def __init__(self, skills: SessionSkills) -> None:
        self.skills = skills

    def _schema(self) -> dict[str, Any]:
        names = sorted(self.skills.enabled)
        return {
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": names, "description": "The skill's name."}
            },
            "required": ["name"],
        }

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self._schema()
        )

    def validate(self, args: dict[str, Any]) -> str | None:
        name = args.get("name")
        if not isinstance(name, str) or not name:
            return "name is required: one of the skills listed in the system instruction"
        if name not in self.skills.enabled:
            offered = ", ".join(sorted(self.skills.enabled)) or "none"
            return f"No skill named {name!r} is available. Available skills: {offered}"
        return None

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return _Activation(self, args, self.skills.enabled[str(args["name"])])


class _Activation(ToolInvocation):
    def __init__(self, tool: ActivateSkillTool, args: dict[str, Any], skill: Skill) -> None:
        super().__init__(tool, args)
        self.skill = skill

    def describe(self) -> str:
        return f'"{self.skill.name}": {self.skill.description}'

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        skill = self.skill
        return Confirmation(
            kind="info",
            title=f"Activate skill {skill.name}",
            proposed=(
                f"{skill.description}\n\nOpens the folder {skill.folder} ({skill.source}): "
                "its instructions and file list join the conversation, and the model may "
                "read its files."
            ),
        )

    async def execute(self, ctx: ToolContext) -> ToolResult:
        skill = self.skill
        ctx.workspace.add_readable_root(skill.folder)
        listing = folder_listing(skill.folder)
        text = (
            f'<activated_skill name="{skill.name}">\n<instructions>\n{skill.body}\n'
            f"</instructions>\n<available_resources>\n{listing}\n</available_resources>\n"
            "</activated_skill>"
        )
        return ToolResult(
            llm_content=text,
            display=f"Skill {skill.name} activated: {skill.folder} (read-only)",
            data={"skill": skill.name, "folder": str(skill.folder)},
        )
