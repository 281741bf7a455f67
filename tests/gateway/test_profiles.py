"""Profiles through the gateway's Lambda handler: what tools/list shows for a URL, and tools/call of the rest."""

from __future__ import annotations

import json
from typing import Any

from mcp import types

from functions.gateway.app import lambda_handler
from scholar.core.catalogue import ALL_PROFILE, DEFAULT_PROFILE, MAX_RESULT_CHARS, UNKNOWN_PROFILE, UNKNOWN_TOOLSET
from scholar.core.config import get_settings
from scholar.core.errors import INVALID_ARGUMENT
from scholar.families import all_tools, families
from scholar.families.profiles import profile_tools
from scholar.families.standards.spec import RESULT_CHARS as STANDARD_RESULT_CHARS
from scholar.gateway.mcp.dispatch import TOOL_NOT_LISTED
from scholar.gateway.mcp.tools import MAX_RESULT_META, visible_tools
from scholar.services.fulltext.read_options import READ_RESULT_CHARS
from tests.events import load_event, with_body

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
# The whole tools/list answer of the default profile, output schemas included (DESIGN §3).
DEFAULT_LISTING_MAX_BYTES = 100 * 1024


def at(event: dict[str, Any], **query: str) -> dict[str, Any]:
    event["queryStringParameters"] = query or None
    event["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()} or None
    return event


def tools_list(lambda_context, **query: str) -> dict[str, Any]:
    response = lambda_handler(at(with_body(load_event("api_rest_v1_tools_list"), LIST), **query), lambda_context)
    assert response["statusCode"] == 200
    return json.loads(response["body"])


def listed(lambda_context, **query: str) -> set[str]:
    return {tool["name"] for tool in tools_list(lambda_context, **query)["result"]["tools"]}


def call(lambda_context, name: str, arguments: dict[str, Any], **query: str) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    response = lambda_handler(at(with_body(load_event("api_rest_v1_tools_call"), message), **query), lambda_context)
    return json.loads(response["body"])["result"]


def test_a_url_without_a_profile_lists_the_default_profile(lambda_context):
    assert listed(lambda_context) == set(profile_tools(DEFAULT_PROFILE))


def test_the_default_listing_with_its_output_schemas_fits_its_byte_bar(lambda_context):
    result = tools_list(lambda_context)["result"]

    assert len(json.dumps(result, separators=(",", ":")).encode()) <= DEFAULT_LISTING_MAX_BYTES


def reachable() -> set[str]:
    """Every tool this deployment can serve (patent tools need EPO keys the tests do not set)."""
    return {spec.name for spec in visible_tools(get_settings(), None)}


def test_profile_all_lists_every_tool(lambda_context):
    assert listed(lambda_context, profile=ALL_PROFILE) == reachable()


def test_toolsets_alone_list_exactly_those_families_and_the_poll_tool_their_queued_answers_need(lambda_context):
    arxiv = {name for name, spec in all_tools().items() if spec.family == "arxiv"}

    assert listed(lambda_context, toolsets="arxiv") == arxiv | {"get_task_result"}
    assert listed(lambda_context, toolsets="standards,tasks") == {
        name for name, spec in all_tools().items() if spec.family in ("standards", "tasks")}


def test_a_profile_and_toolsets_together_list_their_union(lambda_context):
    arxiv = {name for name, spec in all_tools().items() if spec.family == "arxiv"}

    assert listed(lambda_context, profile=DEFAULT_PROFILE, toolsets="arxiv") == set(
        profile_tools(DEFAULT_PROFILE)) | arxiv


def test_the_deployments_profile_applies_until_a_url_names_its_own(env, lambda_context):
    env.set(SCHOLAR_PROFILE=ALL_PROFILE)

    assert listed(lambda_context) == reachable()
    assert listed(lambda_context, toolsets="tasks") == {"get_task_result", "get_job_result", "list_tasks"}


def test_an_unknown_profile_is_a_protocol_error_naming_the_profiles(lambda_context):
    answer = tools_list(lambda_context, profile="everything")

    assert answer["error"]["code"] == types.INVALID_PARAMS
    assert "default" in answer["error"]["message"] and "all" in answer["error"]["message"]


def test_an_unknown_toolset_is_a_protocol_error_naming_the_toolsets(lambda_context):
    answer = tools_list(lambda_context, toolsets="arxiv,everything")

    assert answer["error"]["code"] == types.INVALID_PARAMS
    assert "'everything'" in answer["error"]["message"]
    assert answer["error"]["data"]["toolsets"] == list(families())


def test_calling_a_tool_this_connection_does_not_list_names_the_profile_and_toolset_that_have_it(lambda_context):
    result = call(lambda_context, "arxiv_list_categories", {})

    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert (error["code"], error["reason"], error["details"]["field"]) == (INVALID_ARGUMENT, TOOL_NOT_LISTED, "name")
    assert error["details"]["toolset"] == "arxiv" and error["details"]["profiles"] == [ALL_PROFILE]
    assert "?profile=all" in error["recovery"]["hint"] and "toolsets=arxiv" in error["recovery"]["hint"]


def test_the_same_call_on_a_url_that_lists_the_tool_runs_it(aws, env, lambda_context):
    env.set(SCHOLAR_LOCAL_DISPATCH="1")

    result = call(lambda_context, "arxiv_list_categories", {"group": "econ"}, toolsets="arxiv")

    assert result.get("isError") in (None, False), result
    assert {c["group"] for c in result["structuredContent"]["categories"]} == {"econ"}


def test_a_call_with_an_unknown_profile_is_refused_naming_the_profile(lambda_context):
    error = call(lambda_context, "search", {"query": "x"}, profile="everything")["structuredContent"]["error"]

    assert (error["code"], error["reason"], error["details"]["field"]) == (INVALID_ARGUMENT, UNKNOWN_PROFILE, "profile")


def test_a_call_with_an_unknown_toolset_is_refused_naming_the_toolsets(lambda_context):
    error = call(lambda_context, "search", {"query": "x"}, toolsets="papers,everything")["structuredContent"]["error"]

    assert (error["code"], error["reason"]) == (INVALID_ARGUMENT, UNKNOWN_TOOLSET)
    assert error["details"]["field"] == "toolsets"
    assert error["details"]["toolsets"] == list(families())


def test_a_write_tool_in_read_only_mode_is_as_unknown_as_ever(env, lambda_context):
    env.set(SCHOLAR_READ_ONLY="true")

    error = call(lambda_context, "download_paper", {"identifier": "10.1/x"})["structuredContent"]["error"]

    assert error["code"] == INVALID_ARGUMENT and "reason" not in error
    assert "download_paper" not in listed(lambda_context)


def test_tools_with_long_answers_carry_their_result_size_on_the_wire(lambda_context):
    tools = {tool["name"]: tool for tool in tools_list(lambda_context, profile=ALL_PROFILE)["result"]["tools"]}

    assert tools["read_paper"]["_meta"][MAX_RESULT_META] == READ_RESULT_CHARS
    assert tools["search"]["_meta"][MAX_RESULT_META] == MAX_RESULT_CHARS
    # It relays whatever was queued: read_paper's pages, get_standard's whole text.
    assert tools["get_task_result"]["_meta"][MAX_RESULT_META] == max(READ_RESULT_CHARS, STANDARD_RESULT_CHARS)
    assert tools["get_paper"]["_meta"][MAX_RESULT_META] == MAX_RESULT_CHARS  # shortened to fit (core.budget)
    assert "_meta" not in tools["get_server_info"]
