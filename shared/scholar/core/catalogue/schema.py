"""A pydantic model as the JSON schema a client reads: arguments as "a type, or leave it out", results compact.

The one non-obvious constraint: schemas are built once per model and handed out as deep copies (a caller that
edits its copy must not change the next caller's).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

__all__ = ["input_schema", "output_schema"]


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of a tool's arguments (``inputSchema``): an optional parameter is a plain type, not required."""
    return copy.deepcopy(_input_schema(model))


def output_schema(forms: Sequence[type[BaseModel]]) -> dict[str, Any]:
    """The JSON schema of a result that takes any of ``forms`` (``anyOf``), their ``$defs`` merged, compacted."""
    schemas = [copy.deepcopy(_schema(model)) for model in forms]
    defs: dict[str, Any] = {}
    for schema in schemas:
        defs.update(schema.pop("$defs", {}))
    combined: dict[str, Any] = {"type": "object", "anyOf": schemas}
    if defs:
        combined["$defs"] = defs
    return _compact_output(_without_model_descriptions(combined))


class _ArgumentsSchema(GenerateJsonSchema):
    """Input schemas as a client should read them: an optional parameter is its plain type, not required.

    Pydantic spells ``x: int | None = None`` as ``anyOf [integer, null]`` with ``"default": null``; what a
    caller needs is "an integer, or leave it out" (scholar.core.validation reads a JSON null for it as left out).
    """

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        json_schema = super().default_schema(schema)
        if json_schema.get("default", ...) is None:
            del json_schema["default"]
        return json_schema


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return _without_titles(TypeAdapter(model).json_schema(by_alias=True))


@cache
def _input_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = _without_titles(TypeAdapter(model).json_schema(by_alias=True, schema_generator=_ArgumentsSchema))
    schema.pop("title", None)  # the model's class name: nothing a caller uses
    return schema


def _without_titles(node: Any, *, is_property: bool = False) -> Any:
    """Drop pydantic's generated property ``title`` keys: they repeat the property names (model titles stay)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "title" and is_property and isinstance(value, str):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: _without_titles(sub, is_property=True) for name, sub in value.items()}
            else:
                out[key] = _without_titles(value)
        return out
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    return node


def _without_model_descriptions(node: Any, *, is_property: bool = False) -> Any:
    """Drop the descriptions pydantic takes from model and enum docstrings (field descriptions stay).

    In an output schema they are notes for this code base, repeated in every tool that returns the model
    (~14 kB of the tools/list answer); what a client needs is in the tool's description and the fields'.
    """
    if isinstance(node, dict):
        own = not is_property and ("properties" in node or "enum" in node)
        out = {}
        for key, value in node.items():
            if key == "description" and own:
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: _without_model_descriptions(sub, is_property=True) for name, sub in value.items()}
            else:
                out[key] = _without_model_descriptions(value)
        return out
    if isinstance(node, list):
        return [_without_model_descriptions(item) for item in node]
    return node


def _compact_output(node: Any, *, is_properties: bool = False) -> Any:
    """The same constraints in fewer bytes (the SDK serialises every byte of tools/list twice per call).

    ``default`` is dropped (a validator ignores it; the result fields' meaning is in their descriptions), and
    ``anyOf [{"type": T, ...}, {"type": "null"}]`` becomes ``{"type": [T, "null"], ...}`` where that is the same
    constraint: a typed form without ``enum``, ``const`` or a reference (their keywords would refuse the null).
    """
    if isinstance(node, list):
        return [_compact_output(item) for item in node]
    if not isinstance(node, dict):
        return node
    if is_properties:
        return {name: _compact_output(sub) for name, sub in node.items()}
    out = {key: _compact_output(value, is_properties=key == "properties") for key, value in node.items()
           if key != "default"}
    forms = out.get("anyOf")
    if isinstance(forms, list) and len(forms) == 2 and {"type": "null"} in forms:
        typed = forms[0] if forms[1] == {"type": "null"} else forms[1]
        if isinstance(typed.get("type"), str) and not {"enum", "const", "$ref", "anyOf"} & set(typed) \
                and not set(typed) & set(out):
            rest = {key: value for key, value in out.items() if key != "anyOf"}
            return {**rest, **typed, "type": [typed["type"], "null"]}
    return out

