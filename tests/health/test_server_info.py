"""get_server_info through the research function: what is configured, never a secret's value."""

from __future__ import annotations

import json

import jsonschema
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS

from functions.research.app import lambda_handler
from scholar.core.catalogue import ALL_PROFILE, DEFAULT_PROFILE, MAX_RESULT_CHARS, PROFILES
from scholar.families import all_tools, families, get_tool
from scholar.families.profiles import profile_tools
from scholar.families.research.operations.server_info import PROTOCOL_VERSIONS, SIZE_BUDGET_CHARS
from scholar.services.health.records import hash_principal

S2_KEY = "s2-key-value-that-must-never-show"


def server_info(lambda_context, principal: str = "apikey:caller-1") -> dict:
    outcome = lambda_handler(
        {"tool": "get_server_info", "arguments": {}, "principal": principal, "request_id": "r"}, lambda_context
    )
    assert outcome["ok"], outcome
    return outcome["result"]


def test_keys_are_reported_present_or_absent_and_their_values_never(env, lambda_context):
    env.set(SCHOLAR_S2_API_KEY=S2_KEY, SCHOLAR_EPO_CONSUMER_KEY=None, SCHOLAR_EPO_CONSUMER_SECRET=None)
    info = server_info(lambda_context)
    sources = {s["name"]: s for s in info["sources"]}
    assert sources["s2"]["credentials"] == {"s2_api_key": True}
    assert sources["epo_ops"]["credentials"] == {"epo_consumer_key": False, "epo_consumer_secret": False}
    assert sources["crossref"]["credentials"] == {}
    assert S2_KEY not in json.dumps(info)


def test_families_and_tool_counts_follow_the_catalogue(lambda_context):
    info = server_info(lambda_context)
    assert [f["name"] for f in info["families"]] == list(families())
    assert sum(f["tools"] for f in info["families"]) == info["tool_count"] == len(all_tools())
    assert {"source_health", "get_server_info"} <= {n for n, s in all_tools().items() if s.family == "research"}


def test_the_caller_sees_only_the_salted_hash_of_their_own_id(env, lambda_context):
    env.set(SCHOLAR_PRINCIPAL_SALT="stack-salt")
    info = server_info(lambda_context, principal="apikey:caller-1")
    assert info["principal"] == hash_principal("apikey:caller-1", "stack-salt")
    assert "caller-1" not in json.dumps(info)
    assert server_info(lambda_context, principal="apikey:caller-2")["principal"] != info["principal"]


def test_modes_limits_and_batches_are_reported(env, lambda_context):
    env.set(SCHOLAR_READ_ONLY="true", SCHOLAR_TOOLSETS="papers,research", SCHOLAR_BUILD="abc1234")
    info = server_info(lambda_context)
    assert (info["read_only"], info["toolsets"], info["build"]) == (True, ["papers", "research"], "abc1234")
    assert {f["name"]: f["listed"] for f in info["families"]}["books"] is False
    assert info["paging_limits"]["search_papers.limit"] == 100
    assert info["batch_sizes"]["s2.paper_batch"] == 500
    jsonschema.validate(info, get_tool("get_server_info").output_schema())


def test_the_protocol_versions_are_the_sdk_s_and_the_size_budget_is_the_families():
    assert tuple(SUPPORTED_PROTOCOL_VERSIONS) == PROTOCOL_VERSIONS
    assert SIZE_BUDGET_CHARS == MAX_RESULT_CHARS


def test_the_profiles_and_what_each_lists_are_reported(env, lambda_context):
    info = server_info(lambda_context)

    profiles = {p["name"]: p for p in info["profiles"]}
    assert set(profiles) == set(PROFILES)
    assert profiles[DEFAULT_PROFILE]["tools"] == list(profile_tools(DEFAULT_PROFILE))
    assert profiles[ALL_PROFILE]["tools"] == list(all_tools())
    assert profiles[DEFAULT_PROFILE]["listing_chars"] < profiles[ALL_PROFILE]["listing_chars"]
    assert info["profile"] == DEFAULT_PROFILE and "toolsets" not in info  # absent optional fields are omitted
    assert {f["name"] for f in info["families"] if f["listed"]} == {
        all_tools()[name].family for name in profile_tools(DEFAULT_PROFILE)}


def test_the_deployments_profile_setting_is_reported(env, lambda_context):
    env.set(SCHOLAR_PROFILE=ALL_PROFILE)

    info = server_info(lambda_context)

    assert info["profile"] == ALL_PROFILE
    assert all(f["listed"] for f in info["families"])
