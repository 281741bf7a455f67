"""What every client pays before its first question (DESIGN §3): the listing's weight, kept by design.

The bars are limits we keep, read from the catalogue (no timing): the default profile ≤ 20,000 characters of
descriptions + input schemas as compact JSON and still the whole research workflow; every tool ≤ 40,000. Optional
parameters are a plain type that is not required, and a JSON null for one reads as leaving it out.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_jsonschema import from_schema

from scholar.core.catalogue import ALL_PROFILE, DEFAULT_PROFILE, MAX_RESULT_CHARS, PROFILES
from scholar.core.errors import InvalidArgumentError
from scholar.core.validation import validate_arguments
from scholar.families import all_tools, result_size_hint
from scholar.families.profiles import profile_tools

TOOLS = all_tools()
DEFAULT_MAX_CHARS = 20_000
ALL_MAX_CHARS = 40_000
# find → read → cite → keep, and polling what was queued.
WORKFLOW = {"find": {"search"}, "read": {"read_paper"}, "cite": {"generate_citations"},
            "keep": {"library_add", "download_paper"}, "poll": {"get_task_result"}}
# Seed parameters whose null means something of its own (seed 004: the most; seed 001: the whole text).
NULL_WITH_A_MEANING = {("arxiv_read_paper", "max_characters"), ("get_standard", "max_chars")}
# Claude Code keeps a result whole up to the tool's maxResultSizeChars, at most this many characters.
CLIENT_CEILING = 500_000
ONE_DRAW = settings(max_examples=3, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def listing_chars(names: tuple[str, ...]) -> int:
    return sum(TOOLS[name].listing_chars() for name in names)


def test_listing_chars_is_the_description_plus_the_compact_input_schema():
    spec = TOOLS["search"]

    assert spec.listing_chars() == len(spec.description) + len(json.dumps(spec.input_schema(), separators=(",", ":")))


def test_the_default_profile_fits_its_bar_and_carries_the_research_workflow():
    names = profile_tools(DEFAULT_PROFILE)

    assert listing_chars(names) <= DEFAULT_MAX_CHARS
    for step, tools in WORKFLOW.items():
        assert tools <= set(names), step


def test_every_tool_listed_fits_its_bar():
    assert listing_chars(profile_tools(ALL_PROFILE)) <= ALL_MAX_CHARS
    assert profile_tools(ALL_PROFILE) == tuple(TOOLS)


def test_every_tool_a_profile_names_is_in_the_catalogue():
    for profile in PROFILES.values():
        assert set(profile.tools) <= set(TOOLS), profile.name


def _nulls(node: Any) -> list[Any]:
    if isinstance(node, dict):
        own = [node] if node.get("type") == "null" or ("default" in node and node["default"] is None) else []
        return own + [n for value in node.values() for n in _nulls(value)]
    if isinstance(node, list):
        return [n for value in node for n in _nulls(value)]
    return []


@pytest.mark.parametrize("name", list(TOOLS))
def test_no_input_schema_spells_an_optional_parameter_as_nullable(name):
    schema = TOOLS[name].input_schema()

    assert _nulls(schema) == []
    assert "title" not in schema  # the model's class name tells a caller nothing


def test_the_parameters_whose_null_has_a_meaning_are_the_two_seeds_name():
    found = {
        (name, field_name)
        for name, spec in TOOLS.items()
        for field_name, field in spec.input_model.model_fields.items()
        if not field.is_required() and field.default is not None and _accepts_null(spec.input_model, field_name)
    }

    assert found == NULL_WITH_A_MEANING


def _accepts_null(model: Any, field_name: str) -> bool:
    field = model.model_fields[field_name]
    return type(None) in getattr(field.annotation, "__args__", ())


def _outcome(model: Any, arguments: dict[str, Any], tool: str) -> Any:
    try:
        return validate_arguments(model, arguments, tool=tool).model_dump()
    except InvalidArgumentError as err:
        return err.code, err.field


@pytest.mark.parametrize("name", list(TOOLS))
def test_a_null_for_an_optional_parameter_is_the_parameter_left_out(name):
    spec = TOOLS[name]
    schema = spec.input_schema()
    optional = [p for p in schema.get("properties", {}) if p not in schema.get("required", [])
                and (name, p) not in NULL_WITH_A_MEANING]

    @ONE_DRAW
    @given(from_schema(schema))
    def check(arguments: dict[str, Any]) -> None:
        left_out = {k: v for k, v in arguments.items() if k not in optional}
        with_nulls = {**left_out, **dict.fromkeys(optional)}
        assert _outcome(spec.input_model, with_nulls, name) == _outcome(spec.input_model, left_out, name)

    check()


def test_a_null_for_a_required_parameter_is_still_refused_naming_it():
    with pytest.raises(InvalidArgumentError) as caught:
        validate_arguments(TOOLS["get_paper"].input_model, {"identifier": None}, tool="get_paper")

    assert caught.value.field == "identifier"


def test_each_advertised_result_size_is_the_cap_its_code_enforces():
    from scholar.families.arxiv.spec import MAX_CHARACTERS
    from scholar.families.research.fetch.spec import FETCH_MAX_CHARS
    from scholar.services.fulltext.models import MAX_CHARS_LIMIT, PDF_RESULT_CHARS
    from scholar.services.fulltext.read_options import MAX_READ_CHARS, READ_RESULT_CHARS
    from scholar.services.library.export import INLINE_BUDGET

    hints = {name: result_size_hint(spec) for name, spec in TOOLS.items() if result_size_hint(spec)}

    assert hints["search"] == MAX_RESULT_CHARS
    assert hints["read_paper"] == READ_RESULT_CHARS > MAX_READ_CHARS
    assert hints["fetch"] == READ_RESULT_CHARS > FETCH_MAX_CHARS  # fetch's text is read_paper's whole pages
    assert hints["fetch_and_convert"] == hints["convert_pdf_to_markdown"] == PDF_RESULT_CHARS > MAX_CHARS_LIMIT
    assert hints["arxiv_read_paper"] == MAX_RESULT_CHARS > MAX_CHARACTERS
    assert hints["library_export"] == MAX_RESULT_CHARS > INLINE_BUDGET
    # A task's result is the answer of whichever tool queued it.
    assert hints["get_task_result"] == max(result_size_hint(s) or 0 for s in TOOLS.values() if s.may_queue)
    assert all(hint <= CLIENT_CEILING for hint in hints.values())
