"""An ACP prompt (text, resource links, embedded resources, images) as a gemtui prompt.

Text stays text. A resource link becomes an ``@path`` the session attaches itself (so the
workspace bounds and ignore files decide what is read); an embedded resource is the
editor's own copy of a file or selection, put into the prompt as a fenced block; images
go to the model as inline data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from gemtui.wire import Blob, Part

__all__ = ["prompt_from_blocks"]


def _path_of(uri: str, root: Path) -> str:
    """A ``file://`` URI as a workspace-relative path when it is inside, else as given."""
    parts = urlsplit(uri)
    if parts.scheme not in ("", "file"):
        return uri
    path = Path(unquote(parts.path))
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def prompt_from_blocks(blocks: list[Any], root: Path) -> tuple[str, list[Part]]:
    """The prompt's text and its media parts."""
    texts: list[str] = []
    media: list[Part] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            path = _path_of(block.uri, root)
            texts.append(f"@{path}" if " " not in path else f"{block.name} ({block.uri})")
        elif isinstance(block, EmbeddedResourceContentBlock):
            res = block.resource
            where = _path_of(res.uri, root)
            if isinstance(res, TextResourceContents):
                texts.append(f"\n--- {where} ---\n```\n{res.text}\n```\n")
            else:
                mime = res.mime_type or "application/octet-stream"
                media.append(Part(inline_data=Blob(mime_type=mime, data=res.blob)))
        elif isinstance(block, ImageContentBlock):
            media.append(Part(inline_data=Blob(mime_type=block.mime_type, data=block.data)))
    return " ".join(t for t in texts if t).strip(), media
