"""Validate only the fields a settings file gives (issue 34: the engine's start).

Validating the whole settings tree builds the validator of every one of its 27 section
models (~35 ms after the first frame, before the first request). Here each section
given is validated on its own (its validator built then, once per process) and a
section left out is its defaults, which pydantic does not validate either. The error
named is the one validating the whole tree names first: the fields in their order,
then an unknown key; with the same words and the same dotted key.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from gemtui.errors import FatalConfigError

__all__ = ["describe", "validate_given"]

M = TypeVar("M", bound=BaseModel)

_EXTRA = "Extra inputs are not permitted"
"""Pydantic's words for an unknown key (``extra="forbid"``)."""


def describe(error: Any, path: Path | None, within: tuple[str, ...] = ()) -> str:
    """One validation error as the line a person reads (exit 52), naming the dotted key."""
    key = ".".join(str(p) for p in (*within, *error["loc"]))
    where = f"{path}: " if path else ""
    hint = {
        "extra_forbidden": "remove it or check its spelling",
        "literal_error": "use one of the allowed values",
        "missing": "add it",
    }.get(error["type"], "fix its value")
    return f"{where}setting '{key}': {error['msg']} ({hint})"


def validate_given(model: type[M], data: dict[str, Any], path: Path | None) -> M:
    """``data`` as ``model`` (whose fields all have defaults), validating only the fields
    it gives; ``FatalConfigError`` names the first problem and ``path``."""
    where = f"{path}: " if path else ""
    values: dict[str, Any] = {}
    given: set[str] = set()
    known: set[str] = set()
    try:
        for name, field in model.model_fields.items():
            keys = [k for k in (name, field.alias) if k is not None]
            known.update(keys)
            key = next((k for k in keys if k in data), None)
            if key is None:
                values[name] = _default(field)
                continue
            try:
                values[name] = _checked(model, name, data[key])
            except ValidationError as exc:
                raise FatalConfigError(describe(exc.errors()[0], path, (key,))) from exc
            given.add(name)
    except RecursionError as exc:  # deep nesting under a free-form key (mcpServers extras)
        raise FatalConfigError(f"{where}settings nest too deeply to read") from exc
    for key in data:
        if key not in known:
            unknown = {"type": "extra_forbidden", "loc": (key,), "msg": _EXTRA}
            raise FatalConfigError(describe(unknown, path))
    return model.model_construct(_fields_set=given, **values)


def _default(field: FieldInfo) -> Any:
    """A field's default without building a section's validator (a section model's own
    defaults, unless the field says otherwise)."""
    annotation = field.annotation
    plain = field.default_factory is annotation
    if plain and isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation.model_construct()
    return field.get_default(call_default_factory=True, validated_data={})


@cache
def _adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any] | type[BaseModel]:
    """What validates one field: a section model itself (so its own validator is built,
    once, for every later use too), else an adapter of the field's type."""
    field = model.model_fields[name]
    annotation: Any = field.annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and not field.metadata:
        return annotation
    return TypeAdapter(Annotated[annotation, *field.metadata] if field.metadata else annotation)


def _checked(model: type[BaseModel], name: str, value: Any) -> Any:
    check = _adapter(model, name)
    if isinstance(check, TypeAdapter):
        return check.validate_python(value)
    return check.model_validate(value)
