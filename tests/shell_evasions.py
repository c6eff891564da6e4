"""The evasion corpus: shell text that tries to run more than the one command a rule allows.

``ALLOW_SIDE``: with the single rule ``commandPrefix = "git status"`` in default mode, each
tries to run ``touch marker``. ``DENY_SIDE``: with a deny rule on ``rm`` under yolo, each
tries to delete ``victim``. Every case is first run by real bash in a scratch git
repository (``scratch_repo``) to prove it does what it claims, so none is vacuous.
``visible`` marks deny-side forms where ``rm`` itself is named in the text (through
quotes, paths or wrappers): those must be refused outright; the rest must at least ask.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ALLOW_SIDE", "DENY_SIDE", "Case", "run_bash", "scratch_repo"]


@dataclass(frozen=True)
class Case:
    command: str
    visible: bool = False

    def __str__(self) -> str:
        return self.command


ALLOW_SIDE = [
    Case(c)
    for c in (
        # the reproductions
        "git status #'\ntouch marker\n#'",
        "git status $'\\'';touch marker;#'",
        "git status ${x:=$'\\x24(touch marker)'}${x@P}",
        # lists, pipelines, background, newlines
        "git status; touch marker",
        "git status && touch marker",
        "git status --no-such-flag || touch marker",
        "git status | touch marker",
        "git status |& touch marker",
        "git status & touch marker; wait",
        "git status\ntouch marker",
        "git status\n\\touch marker",
        # substitutions and here-documents
        "git status $(touch marker)",
        "git status `touch marker`",
        'git status -- "$(touch marker)"',
        "git status; cat <(touch marker)",
        "git status; cat <<EOF\n$(touch marker)\nEOF",
        "git status; cat <<< $(touch marker)",
        "git status; echo ${x:-$(touch marker)}",
        "git status ${x:-`touch marker`}",
        "git status; cat <<EOF\n`touch marker`\nEOF",
        "git status `echo \\`touch marker\\``",
        "git status; echo $(( $(touch marker) 1 ))",
        "git status; x='a[$(touch marker)]'; echo $((x))",
        "git status; a[$(touch marker)]=1",
        "git status; export X=$(touch marker)",
        "git status; declare -i n='a[$(touch marker)]'",
        "git status; [[ 'a[$(touch marker)]' -eq 0 ]]",
        # groups, functions, compound statements
        "git status; (touch marker)",
        "git status; { touch marker; }",
        "git status; f() { touch marker; }; f",
        "git status; if true; then touch marker; fi",
        "git status; for i in 1; do touch marker; done",
        "git status; while true; do touch marker; break; done",
        "git status; case x in x) touch marker;; esac",
        "git status; ! touch marker",
        "git status; ! if true; then touch marker; fi",
        # shell text run again
        "git status; eval 'touch marker'",
        "git status; bash -c 'touch marker'",
        'git status; sh -c "touch marker"',
        "git status; trap 'touch marker' EXIT",
        "git status; . ./evil.sh",
        "git status; source ./evil.sh",
        "git status; bash ./evil.sh",
        "git status; bash < ./evil.sh",
        # wrappers and disguised names
        "git status; env touch marker",
        "git status; command touch marker",
        "git status; exec touch marker",
        "git status; nice -n 5 touch marker",
        "git status; timeout 5 touch marker",
        "git status; nohup touch marker",
        "git status; time touch marker",
        "git status; echo marker | xargs touch",
        "git status; find . -maxdepth 0 -exec touch marker \\;",
        "git status; /usr/bin/touch marker",
        "git status; \\touch marker",
        "git status; to''uch marker",
        "git status; $'\\x74ouch' marker",
        "git status; t=touch; $t marker",
        "git status; to\\\nuch marker",
        "git status; coproc touch marker; wait",
        # the allowed program made to run something else
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor "
        "GIT_CONFIG_VALUE_0='touch marker; false' git status",
        "PATH=./evil:$PATH git status",
        "env PATH=./evil:/usr/bin:/bin git status",
        # blanks to the grammar, word characters to bash: the comment hides the rest
        "git status \r#;touch marker",
        "git status \v#;touch marker",
        "git status function\f#]&touch marker",
        # a line break, then a backslash-newline the grammar reads as joining the lines
        "git status\n\\\ntouch marker",
        "git status -s\n\\\n\\\ntouch marker",
        "git status $\\\n\ntouch marker",
    )
]

DENY_SIDE = [
    *(
        Case(c, visible=True)
        for c in (
            "echo hi #'\nrm -f victim\n#'",
            "rm -f victim",
            "/bin/rm -f victim",
            "'/bin/rm' -f victim",
            "command rm -f victim",
            "command -p rm -f victim",
            "builtin command rm -f victim",
            "\\rm -f victim",
            "r''m -f victim",
            '"rm" -f victim',
            "$'\\x72m' -f victim",
            "env rm -f victim",
            "/usr/bin/env rm -f victim",
            "nice rm -f victim",
            "nice -n 5 rm -f victim",
            "timeout 5 rm -f victim",
            "timeout -s KILL 5 rm -f victim",
            "nohup rm -f victim",
            "exec rm -f victim",
            "exec -a foo rm -f victim",
            "time rm -f victim",
            "stdbuf -oL rm -f victim",
            "setsid -w rm -f victim",
            "echo victim | xargs rm -f",
            "find . -name victim -exec rm -f {} \\;",
            "bash -c 'rm -f victim'",
            'sh -c "rm -f victim"',
            "bash -ec 'true; rm -f victim'",
            "eval 'rm -f victim'",
            "trap 'rm -f victim' EXIT",
            "echo $(rm -f victim)",
            "echo `rm -f victim`",
            "cat <(rm -f victim)",
            "cat <<EOF\n$(rm -f victim)\nEOF",
            "f() { rm -f victim; }; f",
            "{ rm -f victim; }",
            "(rm -f victim)",
            "true |& rm -f victim",
            "rm -f victim & wait",
            "true\nrm -f victim",
            "if true; then rm -f victim; fi",
            "case a in a) rm -f victim;; esac",
            "! rm -f victim",
            # words after a redirection's target still belong to the command
            "command >/dev/null rm -f victim",
            "env 2>/dev/null rm -f victim",
            "nice 2>&1 rm -f victim",
            "command <<EOF rm -f victim\nx\nEOF",
            "command <<EOF >/dev/null rm -f victim\nx\nEOF",
        )
    ),
    *(
        Case(c)
        for c in (
            "x=rm; $x -f victim",
            "true\n\\rm -f victim",
            "! if true; then rm -f victim; fi",
            "echo ${x:-`rm -f victim`}",
            "cat <<EOF\n`rm -f victim`\nEOF",
            "${x:=rm} -f victim",
            "r\\\nm -f victim",
            "x='a[$(rm -f victim)]'; echo $((x))",
            "bash <<< 'rm -f victim'",
            "echo 'rm -f victim' | bash",
            "source ./rm.sh",
            "env -i PATH=/bin:/usr/bin rm -f victim",
            # builtins that take a variable name evaluate its subscript as arithmetic
            "printf -v 'a[$(rm -f victim)]' 1",
            "printf -va[$'\\x24'\"(rm -f victim)\"] 1",
            "i='b[$(rm -f victim)]'; printf -v 'a[i]' 1",
            "n='a[$(rm -f victim)]'; command printf -v \"$n\" 1",
            "read 'a[$(rm -f victim)]' <<< 1",
            "test -v 'a[$(rm -f victim)]'",
            "a=(1); unset 'a[$(rm -f victim)]'",
            "declare 'a[$(rm -f victim)]=1'",
            "typeset 'a[$(rm -f victim)]'=1",
            "n='a[$(rm -f victim)]=1'; declare \"$n\"",
            "declare -a x='([0]=$(rm -f victim))'",
            "declare -A x='([$(rm -f victim)]=1)'",
            "v='($(rm -f victim))'; x=(); declare x=\"$v\"",
            "echo hi \r#;rm -f victim",
            "echo hi\n\\\nrm -f victim",
            "echo $\\\n\nrm -f victim",
            # programs that run shell text taken from their arguments
            "awk 'BEGIN{system(\"rm -f victim\")}'",
            "git -c alias.x='!rm -f victim' x",
            "sed -n '1e rm -f victim' /etc/hostname",
            "tar -cf /dev/null /etc/hostname --checkpoint=1 --checkpoint-action=exec='rm -f victim'",
            "python3 -c 'import os; os.system(\"rm -f victim\")'",
        )
    ),
]

_EVIL = '#!/bin/sh\ntouch marker\nexec /usr/bin/git "$@"\n'


def scratch_repo(root: Path) -> Path:
    """A git repository with the hostile files some cases use."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "evil").mkdir()
    (root / "evil" / "git").write_text(_EVIL)
    os.chmod(root / "evil" / "git", stat.S_IRWXU)
    (root / "evil.sh").write_text("touch marker\n")
    (root / "rm.sh").write_text("rm -f victim\n")
    (root / "victim").write_text("precious\n")
    return root


def run_bash(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=20,
    )
