"""The prompts: every step a real tool with real fields (so prompts cannot rot), rendering, visibility, bad input."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from scholar.core.catalogue import ALL_PROFILE, Selection
from scholar.core.config import get_settings
from scholar.families import all_tools
from scholar.gateway.mcp import prompts
from scholar.gateway.mcp.prompts import PROMPTS, placeholder_of, render
from scholar.gateway.mcp.server import build_server

# A value for each argument a prompt may take, as a client would send it (strings).
SAMPLES = {"question": "how do graph neural networks generalise", "year_start": "2019", "category": "cs.LG",
           "collection": "thesis", "topic": "message passing", "tag": "gnn", "format": "ris",
           "papers": "10.1073/pnas.1414271111, arXiv:2305.03393", "aspect": "evaluation",
           "identifier": "10.1073/pnas.1414271111", "audience": "a first-year student",
           "requirement": "passwords must be stored hashed", "body": "NIST", "toolset": "papers",
           "task": "find a paper's citations"}
CALL = re.compile(r"^\d+\. (\w+) (\{.*\}) — ")


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(m.group(1), json.loads(m.group(2))) for line in text.splitlines() if (m := CALL.match(line))]


@pytest.mark.parametrize("prompt", PROMPTS, ids=[p.name for p in PROMPTS])
def test_every_step_names_a_catalogue_tool_and_only_its_real_input_fields(prompt):
    tools = all_tools()
    for step in prompt.steps:
        assert step.tool in tools, step.tool
        fields = tools[step.tool].input_model.model_fields
        assert set(step.arguments) <= set(fields), (step.tool, set(step.arguments) - set(fields))
    taken = {a.name for a in prompt.arguments}
    fed = {placeholder_of(v) for s in prompt.steps for v in s.arguments.values()} - {None}
    assert fed <= taken, fed - taken


@pytest.mark.parametrize("prompt", PROMPTS, ids=[p.name for p in PROMPTS])
@pytest.mark.parametrize("given", ["required", "all"])
def test_each_rendered_call_is_valid_for_its_tool_as_written(prompt, given):
    chosen = [a for a in prompt.arguments if a.required or given == "all"]
    text = render(prompt, {a.name: SAMPLES[a.name] for a in chosen}, get_settings(), None)

    calls = _calls(text)
    assert calls, text
    for tool, arguments in calls:
        all_tools()[tool].input_model.model_validate_json(json.dumps(arguments), strict=True)
    assert "{" not in text.replace("{}", "").split("\n\n")[-1]  # every placeholder of the answer was filled


def test_optional_arguments_add_their_fields_and_steps_only_when_given():
    related = next(p for p in PROMPTS if p.name == "related_work_section")

    bare = dict(_calls(render(related, {"collection": "thesis"}, get_settings(), None)))
    full = _calls(render(related, {"collection": "thesis", "topic": "gnn", "tag": "x"}, get_settings(), None))

    assert "library_search" not in bare and "tag" not in bare["library_list"]
    assert [t for t, _ in full].count("search") == 1 and dict(full)["library_search"]["tag"] == "x"


def test_compare_papers_takes_its_identifiers_as_one_list():
    compare = next(p for p in PROMPTS if p.name == "compare_papers")

    calls = dict(_calls(render(compare, {"papers": "10.1/a; arXiv:2305.03393  PMID:123"}, get_settings(), None)))

    assert calls["batch_resolve"]["identifiers"] == ["10.1/a", "arXiv:2305.03393", "PMID:123"]


@pytest.mark.parametrize(("name", "arguments", "argument"), [
    ("explain_paper", {}, "identifier"),
    ("explain_paper", {"identifier": "10.1/a", "colour": "blue"}, "colour"),
    ("literature_review", {"question": "q", "year_start": "last year"}, "year_start"),
    ("literature_review", {"question": "q", "year_start": "1200"}, "year_start"),
    ("standards_for_requirement", {"requirement": "r", "body": "not a body!"}, "body"),
    ("explore_toolset", {"toolset": "astrology"}, "toolset"),
])
def test_a_missing_unknown_or_invalid_argument_is_minus_32602_naming_it(name, arguments, argument):
    prompt = next(p for p in PROMPTS if p.name == name)

    with pytest.raises(MCPError) as caught:
        render(prompt, arguments, get_settings(), None)

    assert caught.value.code == types.INVALID_PARAMS and caught.value.data == {"argument": argument}


def test_a_prompt_whose_first_tool_the_toolsets_hide_is_neither_listed_nor_served():
    standards_only = Selection(toolsets=frozenset({"standards"}))

    listed = {p.name for p in prompts.visible_prompts(get_settings(), standards_only)}
    with pytest.raises(MCPError) as caught:
        prompts.get_prompt("explain_paper", {"identifier": "10.1/a"}, get_settings(), standards_only)

    assert "explain_paper" not in listed and "literature_review" not in listed
    assert "standards_for_requirement" in listed  # its later search step is left out, said so in the message
    assert caught.value.code == types.INVALID_PARAMS


def test_the_default_profile_lists_the_prompts_it_can_start_and_leaves_out_the_steps_it_does_not_list():
    default = Selection()
    literature = next(p for p in PROMPTS if p.name == "literature_review")

    listed = {p.name for p in prompts.visible_prompts(get_settings(), default)}
    text = render(literature, {"question": "graph neural networks"}, get_settings(), default)
    everything = render(literature, {"question": "graph neural networks"}, get_settings(), Selection(ALL_PROFILE))

    # A prompt starts with a listed tool; standards and the comparison start with tools the default leaves out.
    assert {"literature_review", "explain_paper", "related_work_section"} <= listed
    assert not {"standards_for_requirement", "compare_papers"} & listed
    assert [tool for tool, _ in _calls(text)] == ["search", "search", "read_paper", "read_paper", "library_add",
                                                  "library_export"]
    assert "arxiv_search" in text.split("Left out:")[1] and "?profile=all" in text
    assert "arxiv_search" in [tool for tool, _ in _calls(everything)] and "Left out:" not in everything


def test_the_explore_prompt_says_which_of_the_family_the_connection_leaves_out():
    explore = next(p for p in PROMPTS if p.name == "explore_toolset")

    text = render(explore, {"toolset": "standards"}, get_settings(), Selection())

    assert "- search_standards:" in text
    assert "This connection does not list" in text and "?toolsets=standards" in text


def test_the_explore_prompt_lists_the_toolsets_tools_from_the_catalogue():
    explore = next(p for p in PROMPTS if p.name == "explore_toolset")

    text = render(explore, {"toolset": "standards"}, get_settings(), None)

    names = {spec.name for spec in all_tools().values() if spec.family == "standards"}
    assert {line[2:].split(":")[0] for line in text.splitlines() if line.startswith("- ")} == names
    assert "?toolsets=standards" in text


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_prompts_list_and_get_through_the_sdk_client(mode):
    async def main() -> tuple[types.ListPromptsResult, types.GetPromptResult, MCPError]:
        async with Client(build_server(), mode=mode) as client:
            listed = await client.list_prompts()
            got = await client.get_prompt("explain_paper", {"identifier": "arXiv:2305.03393"})
            with pytest.raises(MCPError) as caught:
                await client.get_prompt("test_simple_prompt")
            return listed, got, caught.value

    listed, got, unknown = anyio.run(main)
    names = [p.name for p in listed.prompts]
    assert names == sorted(names) == [p.name for p in prompts.visible_prompts(get_settings(), Selection())]
    assert all(p.description for p in listed.prompts)
    explain = next(p for p in listed.prompts if p.name == "explain_paper")
    assert [(a.name, a.required) for a in explain.arguments] == [("identifier", True), ("audience", False)]
    assert got.messages[0].role == "user" and '"identifier": "arXiv:2305.03393"' in got.messages[0].content.text
    assert unknown.code == types.INVALID_PARAMS
    if mode != "legacy":
        assert (listed.cache_scope, listed.ttl_ms) == ("public", 3_600_000)
