"""The keys and ways of typing that ``/help`` (F1) explains, above the command table.

Every key named here has a binding or a key handler (``test_help_names_real_keys``
presses them); what the prompt understands (``!``, ``@``) is named beside the keys,
since nothing on the screen shows it before the first use.
"""

from __future__ import annotations

__all__ = ["HELP_TEXT"]

HELP_TEXT = """[b]Keys[/b]
  Enter send · Ctrl+J (or Shift+Enter) newline · Up/Down prompt history
  Esc cancel the turn · Esc Esc on an empty prompt: /rewind (go back to before a prompt)
  Ctrl+C clear the prompt, twice on an empty prompt quits
  PageUp/PageDown scroll the conversation · Ctrl+Home/Ctrl+End (Home/End on an empty
  prompt) its top and end · typing anywhere goes to the prompt
  Ctrl+O show all of the last folded tool card (its arguments and output)
  Ctrl+Z undo · Ctrl+Shift+Z redo (where the terminal reports it; Ctrl+Y redoes too
  while the prompt has something to redo)
  Shift+Tab approval mode default → auto_edit → plan · Ctrl+Y yolo on/off (in the
  prompt with nothing to redo, or the conversation; auto_edit and yolo are confirmed
  once per session: F8, then y; keys typed before F8 go to the prompt)
  F2 thoughts · F3 usage · F4 side panes (narrow screens) · F5 agents · F8 approvals
  F6/F7 copy last answer/code block · Ctrl+F find · mouse selection copies · Ctrl+P palette
  Ctrl+G prompt in $EDITOR · Ctrl+V attach the clipboard's image (⌫ at start removes)

[b]In the prompt[/b]
  @path  attach a file or folder (Tab completes; @my\\ file for a space in the name)
  @agent task  hand the task to a subagent (/agents lists them)
  !  on an empty prompt: shell mode, each line runs as a command (! again leaves)
  /  a command (below); Tab completes

[b]Approvals[/b] (after F8 or a click on the queue)
  1/a allow once · 2/s allow for session · 3/A allow always · 4/r reject
  5/f reject with feedback · 6/m modify · Ctrl+A approve every pending edit of the batch
  8/w reach of session / always: this file, its folder, every call
  j/k next/previous · d unified/side by side
  A queue that took the focus by itself answers no key that types text: digits and
  letters go to the prompt, so "3 things" is a sentence. F8 (or a click) to answer.

[b]Commands[/b]
"""
"""Rich markup: the help screen renders it; the command table follows."""
