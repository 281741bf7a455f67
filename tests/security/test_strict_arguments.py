"""Tool inputs validate strictly: what the JSON Schema says is what is accepted, in the gateway and the family.

Driven by the catalogue: every integer, boolean and enum parameter of every tool is tried with the
coercible wrong types (``"5"``, ``true``, ``"yes"``); enum parameters with the JSON string the schema
promises (strict *python* validation would refuse it).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from scholar.core.catalogue import ToolSpec
from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.core.validation import validate_arguments
from scholar.families import all_tools
from scholar.gateway.mcp.dispatch import call_tool
from scholar.runtime.family import run_tool
from scholar.runtime.invocation import Invocation


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a property schema ($ref and anyOf expanded)."""
    if "$ref" in schema:
        return _resolve(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return [alt for part in schema["anyOf"] for alt in _resolve(part, defs)]
    return [schema]


def _parameters() -> list[tuple[str, str, list[dict[str, Any]]]]:
    found = []
    for name, spec in sorted(all_tools().items()):
        schema = spec.input_schema()
        defs = schema.get("$defs", {})
        for prop, prop_schema in (schema.get("properties") or {}).items():
            found.append((name, prop, _resolve(prop_schema, defs)))
    return found


def _types(alternatives: list[dict[str, Any]]) -> set[str]:
    return {alt.get("type") for alt in alternatives if alt.get("type")}


PARAMETERS = _parameters()
INTEGERS = [
    (t, p) for t, p, alts in PARAMETERS if "integer" in _types(alts) and not _types(alts) & {"string", "number"}
]
BOOLEANS = [(t, p) for t, p, alts in PARAMETERS if _types(alts) == {"boolean"} or _types(alts) == {"boolean", "null"}]
ENUMS = [(t, p, next(a["enum"][0] for a in alts if "enum" in a)) for t, p, alts in PARAMETERS
         if any("enum" in a for a in alts) and not any(a.get("type") == "array" for a in alts)]


def _field_errors(spec: ToolSpec, arguments: dict[str, Any], field: str) -> list[dict[str, str]]:
    try:
        validate_arguments(spec.input_model, arguments, tool=spec.name)
    except InvalidArgumentError as err:
        return [e for e in err.details["errors"] if e["field"] == field]
    return []


def test_the_catalogue_has_parameters_of_each_kind() -> None:
    assert len(INTEGERS) > 10 and len(BOOLEANS) > 5 and ENUMS


@pytest.mark.parametrize(("tool", "field"), INTEGERS)
@pytest.mark.parametrize("wrong", ["5", True, 5.5])
def test_an_integer_parameter_refuses_strings_booleans_and_fractions(tool: str, field: str, wrong: Any) -> None:
    assert _field_errors(all_tools()[tool], {field: wrong}, field)


@pytest.mark.parametrize(("tool", "field"), BOOLEANS)
@pytest.mark.parametrize("wrong", ["yes", "true", 1, 0])
def test_a_boolean_parameter_refuses_strings_and_numbers(tool: str, field: str, wrong: Any) -> None:
    assert _field_errors(all_tools()[tool], {field: wrong}, field)


@pytest.mark.parametrize(("tool", "field", "value"), ENUMS)
def test_an_enum_parameter_accepts_its_json_string(tool: str, field: str, value: Any) -> None:
    assert _field_errors(all_tools()[tool], {field: value}, field) == []


def test_an_integer_parameter_accepts_a_json_integer() -> None:
    spec = all_tools()["search_papers"]
    assert _field_errors(spec, {"query": "x", "limit": 5}, "limit") == []


def test_the_gateway_refuses_a_coerced_type_before_dispatch(monkeypatch) -> None:
    from scholar.runtime import invoke

    def must_not_run(*args: Any) -> Any:
        raise AssertionError("dispatched although the arguments are invalid")

    # The one path tools/call takes below MCP (scholar.runtime.calls.run_tool imports it when it first runs).
    monkeypatch.setattr(invoke, "invoke_family", must_not_run)
    spec = all_tools()["search_papers"]
    result = asyncio.run(call_tool(spec, spec.name, {"query": "graphs", "limit": "5"}, "key-1", None))
    assert result.is_error
    assert result.structured_content["error"]["code"] == INVALID_ARGUMENT
    assert result.structured_content["error"]["details"]["field"] == "limit"


def test_the_family_function_refuses_a_coerced_type_too() -> None:
    invocation = Invocation(tool="search_papers", arguments={"query": "graphs", "limit": True}, principal="key-1")
    with pytest.raises(InvalidArgumentError) as caught:
        asyncio.run(run_tool("papers", invocation))
    assert caught.value.field == "limit"
