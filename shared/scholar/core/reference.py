"""The catalogue as a reference a person reads: each tool's parameters with types, defaults and bounds.

Read by the landing page (scholar.gateway.mcp.landing) and by the docs/tools.md generator
(scholar.families.docs_tools), so the two never disagree. Everything comes from the tools' JSON schemas (what
tools/list sends), not from the pydantic models, so the reference describes exactly the wire contract.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from scholar.core.catalogue import ToolSpec

_BOUNDS = (
    ("minimum", "≥ {}"), ("exclusiveMinimum", "> {}"), ("maximum", "≤ {}"), ("exclusiveMaximum", "< {}"),
    ("minLength", "length ≥ {}"), ("maxLength", "length ≤ {}"), ("minItems", "items ≥ {}"), ("maxItems", "items ≤ {}"),
    ("pattern", "matches {}"),
)


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str
    required: bool
    default: str | None  # JSON text of the default; None when there is none
    bounds: str
    description: str


@dataclass(frozen=True)
class ToolReference:
    name: str
    family: str
    title: str
    description: str
    parameters: tuple[Parameter, ...]
    annotations: tuple[str, ...]  # e.g. ("readOnly", "idempotent", "openWorld")
    tags: tuple[str, ...]
    may_queue: bool
    returns: tuple[str, ...]  # the result's top-level fields


def tool_reference(spec: ToolSpec) -> ToolReference:
    """The reference entry of one tool."""
    schema = spec.input_schema()
    required = set(schema.get("required", []))
    defs = schema.get("$defs", {})
    params = tuple(
        _parameter(name, _resolve(prop, defs), name in required) for name, prop in schema.get("properties", {}).items()
    )
    a = spec.annotations
    flags = (("readOnly", a.read_only), ("destructive", a.destructive), ("idempotent", a.idempotent),
             ("openWorld", a.open_world))
    result_schema = spec.output_schema()["anyOf"][0]
    return ToolReference(
        name=spec.name, family=spec.family, title=spec.title, description=spec.description, parameters=params,
        annotations=tuple(name for name, on in flags if on), tags=tuple(sorted(spec.tags)), may_queue=spec.may_queue,
        returns=tuple(result_schema.get("properties", {})),
    )


def _resolve(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = prop.get("$ref", "")
    if ref.startswith("#/$defs/"):
        return {**defs.get(ref.removeprefix("#/$defs/"), {}), **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop


def _parameter(name: str, prop: dict[str, Any], required: bool) -> Parameter:
    forms = [f for f in prop.get("anyOf", [prop]) if f.get("type") != "null"]
    nullable = len(forms) < len(prop.get("anyOf", [prop]))
    types = " | ".join(_type(f) for f in forms) + (" | null" if nullable else "")
    bounds = "; ".join(b for f in forms for b in _bounds(f))
    default = json.dumps(prop["default"], ensure_ascii=False) if "default" in prop else None
    return Parameter(name=name, type=types, required=required, default=default, bounds=bounds,
                     description=prop.get("description", ""))


def _type(form: dict[str, Any]) -> str:
    if "enum" in form:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in form["enum"])
    if "const" in form:
        return json.dumps(form["const"], ensure_ascii=False)
    kind = form.get("type", "object")
    if kind == "array":
        return f"array of {_type(form.get('items', {}))}"
    return str(kind)


def _bounds(form: dict[str, Any]) -> list[str]:
    out = [text.format(form[key]) for key, text in _BOUNDS if key in form]
    if form.get("type") == "array" and isinstance(form.get("items"), dict):
        out += [f"each {b}" for b in _bounds(form["items"])]
    return out
