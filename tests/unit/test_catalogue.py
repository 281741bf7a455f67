"""The tool catalogue (scholar.families) against the families' handlers: one to one, sorted, valid schemas."""

import importlib

import jsonschema
import pytest

from scholar.core.catalogue import UNKNOWN_PROFILE, UNKNOWN_TOOLSET, QueuedResult, Selection
from scholar.core.errors import INVALID_ARGUMENT, NotFoundError
from scholar.families import all_tools, families, family_tools, get_tool, profiles
from scholar.families.profiles import refusal, tool_names

TOOLS = all_tools()


def handlers_of(family: str) -> dict:
    return importlib.import_module(f"scholar.families.{family}.handlers").HANDLERS


@pytest.mark.parametrize("family", families())
def test_every_tool_of_a_family_has_a_handler_and_every_handler_a_tool(family):
    assert set(family_tools(family)) == set(handlers_of(family))


def test_every_tool_belongs_to_a_known_family():
    assert {spec.family for spec in TOOLS.values()} <= set(families())


@pytest.mark.parametrize("family", families())
def test_every_family_has_a_lambda_entry_point(family):
    module = importlib.import_module(f"functions.{family}.app")
    assert callable(module.lambda_handler)


def test_tool_names_are_unique_and_sorted():
    names = list(TOOLS)
    assert names == sorted(names)
    assert len(names) == len(set(names))
    for name, spec in TOOLS.items():
        assert spec.name == name
        assert get_tool(name) is spec


def test_an_unknown_tool_is_none():
    assert get_tool("no_such_tool") is None


def test_a_selection_naming_an_unknown_profile_or_toolset_is_refused_naming_the_known_ones():
    profile = refusal(Selection("everything"))
    toolset = refusal(Selection(toolsets=frozenset({"arxiv", "everything"})))

    assert (profile.code, profile.reason, profile.field) == (INVALID_ARGUMENT, UNKNOWN_PROFILE, "profile")
    assert (toolset.code, toolset.reason, toolset.field) == (INVALID_ARGUMENT, UNKNOWN_TOOLSET, "toolsets")
    assert all(name in toolset.message for name in families())
    assert refusal(Selection()) is None and refusal(Selection(toolsets=frozenset(families()))) is None


def made_up(i: int) -> tuple[Selection, ...]:
    return (Selection(toolsets=frozenset({"arxiv", f"made-up-{i}"})), Selection(f"made-up-{i}", frozenset({"arxiv"})),
            Selection(f"made-up-{i}"))


def test_names_a_caller_makes_up_never_grow_the_selection_memo():
    arxiv = tool_names(Selection(toolsets=frozenset({"arxiv"})))
    for selection in made_up(0):
        tool_names(selection)
    size = profiles._selected.cache_info().currsize

    for i in range(1, 50):
        toolset, profile_and_toolset, profile = made_up(i)
        assert tool_names(toolset) == tool_names(profile_and_toolset) == arxiv
        assert tool_names(profile) == frozenset()

    assert profiles._selected.cache_info().currsize == size


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_input_schema_is_an_object_schema(name):
    schema = TOOLS[name].input_schema()
    assert schema["type"] == "object"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_output_schema_is_an_object_schema(name):
    schema = TOOLS[name].output_schema()
    assert schema["type"] == "object"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_tool_has_a_title_and_a_description(name):
    spec = TOOLS[name]
    assert spec.title.strip()
    assert len(spec.description) >= 20


def _titles(schema: dict) -> list[str]:
    return [branch.get("title", "") for branch in schema.get("anyOf", [])]


@pytest.mark.parametrize("name", [n for n, s in TOOLS.items() if s.may_queue])
def test_a_tool_that_may_queue_accepts_the_queued_shape_in_its_output_schema(name):
    schema = TOOLS[name].output_schema()
    assert "QueuedResult" in _titles(schema)
    queued = QueuedResult(task_id="abcdefgh12345678", tool=name, poll_after_s=6, reason="rate_limited")
    jsonschema.validate(queued.model_dump(mode="json"), schema)


@pytest.mark.parametrize("name", [n for n, s in TOOLS.items() if not s.may_queue])
def test_a_tool_that_never_queues_has_no_queued_shape(name):
    assert "QueuedResult" not in _titles(TOOLS[name].output_schema())


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_output_schema_accepts_the_error_envelope(name):
    envelope = NotFoundError("no such thing", source="s2", status=404).to_envelope()
    jsonschema.validate(envelope, TOOLS[name].output_schema())


def test_input_models_refuse_unknown_arguments():
    for spec in TOOLS.values():
        assert spec.input_model.model_config.get("extra") == "forbid", spec.name


def _refs(node) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_reference_in_a_schema_resolves_however_often_it_is_asked_for(name):
    spec = TOOLS[name]
    for _ in range(2):
        for schema in (spec.input_schema(), spec.output_schema()):
            defs = schema.get("$defs", {})
            for ref in _refs(schema):
                assert ref.removeprefix("#/$defs/") in defs, ref


def test_a_queued_tool_output_schema_resolves_its_references():
    spec = TOOLS["get_paper"]
    spec.output_schema()
    schema = spec.output_schema()  # the second call must not have lost the $defs the first one used
    paper = {"paperId": "x", "title": "T", "authors": [{"authorId": "1", "name": "A"}], "sources": ["s2"]}
    jsonschema.validate(paper, schema)


def test_output_schemas_keep_field_descriptions_but_not_model_docstrings():
    schema = TOOLS["get_paper"].output_schema()
    defs = schema["$defs"]
    assert all("description" not in node for node in defs.values())
    assert all("description" not in branch for branch in schema["anyOf"])
    described = [p for node in defs.values() for p in node.get("properties", {}).values() if "description" in p]
    assert described  # what a field means is still said


def test_the_cached_catalogue_cannot_be_changed_by_a_caller():
    """A caller that pops a tool from its answer would remove it for every later caller of the process."""
    with pytest.raises(TypeError):
        del family_tools("pdf")["upload_pdf"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        all_tools()["upload_pdf"] = None  # type: ignore[index]
    assert "upload_pdf" in family_tools("pdf") and "upload_pdf" in all_tools()
