"""Typed parameters for built-in tools: one pydantic model per tool is both the JSON schema
the model is shown and the one check its arguments pass.

The schema must stay what Gemini CLI's tools declare and fit every provider's subset
(Gemini's OpenAPI subset has no ``$ref``; ``anyOf`` with null and ``title`` are noise), so
:func:`function_schema` writes it without pydantic's artefacts: no titles, nested models
inlined, an optional field as its plain type, and a default only where a field declares
one for the model (``json_schema_extra={"default": ...}``). Field and model docstrings are
for readers; the model sees ``Field(description=...)`` and ``model_config``'s
``json_schema_extra`` only.
"""

from __future__ import annotations

import copy
import inspect
import reprlib
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

__all__ = ["ToolParams", "function_schema", "integral", "non_empty", "parse_params"]


class ToolParams(BaseModel):
    """Base of every built-in's parameters: strict JSON types, unknown names ignored (as
    the hand-written schemas allowed them), immutable once checked."""

    model_config = ConfigDict(strict=True, frozen=True, extra="ignore", defer_build=True)
    """``defer_build``: a tool's validator is built at its first call, not at start-up
    (its declared schema comes from ``tools/declared_schemas.json``)."""

    @model_validator(mode="before")
    @classmethod
    def _no_nulls(cls, data: Any) -> Any:
        """An optional field is typed ``T | None`` for Python, but the schema says ``T``:
        a null sent for it is refused, as the JSON-schema check refused it."""
        if isinstance(data, dict):
            for name, field in cls.model_fields.items():
                key = field.alias or name
                if key in data and data[key] is None:
                    kind = _schema_of(cls)["properties"][key].get("type", "")
                    raise PydanticCustomError("null_given", "null", {"key": key, "kind": kind})
        return data


def integral(value: Any) -> Any:
    """``3.0`` is the integer 3, as JSON schema's ``integer`` has it (some providers send
    every number as a float); anything else goes on to the strict check unchanged. Use it
    after any constraint, ``Annotated[int, Field(ge=1), BeforeValidator(integral)]``, or
    pydantic cannot declare the constraint."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


P = TypeVar("P", bound=ToolParams)


def non_empty(value: str, name: str) -> str:
    """``value`` unless it is blank: Gemini CLI's rule for a path, pattern or command."""
    if not value.strip():
        raise ValueError(f"The '{name}' parameter must be non-empty.")
    return value


class _ToolSchema(GenerateJsonSchema):
    """Pydantic's generator, minus what a function declaration must not carry."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        # ``x: T | None = None`` means "optional", which ``required`` already says
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        # defaults the model should see are declared on purpose in json_schema_extra
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        out = super().model_schema(schema)
        out.pop("title", None)
        doc = schema["cls"].__doc__
        if doc and out.get("description") == inspect.cleandoc(doc):
            del out["description"]  # a docstring is for readers, not the model
        return out


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every ``$ref`` replaced by its definition (siblings kept)."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _inline(value, defs) for key, value in node.items() if key != "$ref"}
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = _inline(defs[ref.rsplit("/", 1)[-1]], defs)
        out = {**target, **out}
    return out


@lru_cache(maxsize=64)
def _schema_of(model: type[ToolParams]) -> dict[str, Any]:
    raw = model.model_json_schema(schema_generator=_ToolSchema)
    defs = raw.pop("$defs", {})
    schema: dict[str, Any] = _inline(raw, defs)
    return schema


def function_schema(model: type[ToolParams]) -> dict[str, Any]:
    """The declaration's ``parametersJsonSchema`` for ``model`` (a fresh copy each call)."""
    return copy.deepcopy(_schema_of(model))


_short = reprlib.Repr()
_short.maxstring = 80
_short.maxother = 80


def _where(loc: tuple[int | str, ...]) -> str:
    return "/".join(str(p) for p in loc)


def _declared(schema: dict[str, Any], loc: tuple[int | str, ...]) -> dict[str, Any]:
    """The part of ``schema`` that describes the value at ``loc`` ({} if none does)."""
    node: Any = schema
    for part in loc:
        node = node.get("items") if isinstance(part, int) else node.get("properties", {}).get(part)
        if not isinstance(node, dict):
            return {}
    return node  # type: ignore[no-any-return]


def _message(err: Any, schema: dict[str, Any]) -> str:
    """One pydantic error in the words the JSON-schema check used (``Invalid arguments at
    where: what``), so the model reads what it read before; a tool's own rule keeps its
    own sentence."""
    kind: str = err["type"]
    if kind == "value_error":
        return str(err["ctx"]["error"])
    loc: tuple[int | str, ...] = tuple(err["loc"])
    if kind == "null_given":  # raised by the model holding the field, named in ctx
        loc = (*loc, err["ctx"]["key"])
    name = loc[-1] if loc else ""
    if kind in ("missing", "extra_forbidden"):  # said of the object that holds the name
        loc = loc[:-1]
    at = f" at {_where(loc)}" if loc else ""
    got = _short.repr(err.get("input"))
    declared = _declared(schema, loc)
    if kind == "missing":
        what = f"{name!r} is a required property"
    elif kind == "extra_forbidden":
        what = f"Additional properties are not allowed ({name!r} was unexpected)"
    elif kind == "null_given":
        what = f"None is not of type '{err['ctx']['kind']}'"
    elif kind.endswith("_type") and "type" in declared:
        what = f"{got} is not of type '{declared['type']}'"
    elif kind == "literal_error" and "enum" in declared:
        what = f"{got} is not one of {declared['enum']!r}"
    elif kind == "greater_than_equal":
        what = f"{got} is less than the minimum of {err['ctx']['ge']}"
    elif kind in ("too_short", "string_too_short"):
        what = f"{got} should be non-empty"
    else:
        what = f"{err['msg']} (got {got})"
    return f"Invalid arguments{at}: {what}"


def parse_params(model: type[P], args: dict[str, Any]) -> P | str:
    """``args`` as ``model``, or the first problem as one line for the model: type and
    shape errors before a tool's own rules, as when the schema was checked first."""
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        errors = sorted(exc.errors(), key=lambda e: e["type"] == "value_error")
        return _message(errors[0], _schema_of(model))
