"""Resources and completions on the gateway, in process: templates, capabilities, the catalogue's completions and
the spec's errors (the caller's own library is tested against moto in tests/research and end to end in tests/e2e).
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from scholar.core.resource_uris import LIBRARY_ITEM, PAPER_MARKDOWN, TEMPLATES, parse_uri
from scholar.families import families
from scholar.families.arxiv.taxonomy import CATEGORIES
from scholar.families.standards.records import BODIES
from scholar.gateway.mcp.app import create_app
from scholar.gateway.mcp.server import build_server

ERAS = ["legacy", "2026-07-28"]
LITERATURE = types.PromptReference(name="literature_review")


def with_client(mode: str, body: Any) -> Any:
    async def main() -> Any:
        async with Client(build_server(), mode=mode) as client:
            return await body(client)

    return anyio.run(main)


async def refusal(call: Any) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await call
    return caught.value


@pytest.mark.parametrize(("method", "version"), [("initialize", "2025-11-25"), ("server/discover", "2026-07-28")])
def test_initialize_and_discover_advertise_resources_prompts_and_completions_without_subscriptions(method, version):
    params: dict[str, Any] = {"protocolVersion": version, "capabilities": {},
                              "clientInfo": {"name": "test", "version": "1"}}
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": version}
    if method == "server/discover":
        params = {"_meta": {"io.modelcontextprotocol/protocolVersion": version,
                            "io.modelcontextprotocol/clientCapabilities": {}}}
        headers["mcp-method"] = method
    app = create_app(local=True)

    async def main() -> dict[str, Any]:
        transport = httpx.ASGITransport(app=app)
        async with (app.router.lifespan_context(app),
                    httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http):
            response = await http.post("/mcp", headers=headers,
                                       json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            return response.json()["result"]["capabilities"]

    capabilities = anyio.run(main)
    assert capabilities["resources"] == {"listChanged": False, "subscribe": False}
    assert capabilities["prompts"] == {"listChanged": False} and capabilities["completions"] == {}
    assert "tools" in capabilities


@pytest.mark.parametrize("mode", ERAS)
def test_templates_are_listed_sorted_as_public_catalogue_data(mode):
    listed = with_client(mode, lambda client: client.list_resource_templates())

    assert [t.name for t in listed.resource_templates] == sorted(t.name for t in TEMPLATES)
    assert all(t.description and t.mime_type for t in listed.resource_templates)
    if mode != "legacy":
        assert (listed.cache_scope, listed.ttl_ms) == ("public", 3_600_000)


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("uri", ["test://nonexistent-resource-for-conformance-testing", "scholar://elsewhere/x",
                                 "scholar://library/"])
def test_a_uri_of_no_template_is_minus_32602_with_the_uri_and_never_dispatched(mode, uri):
    # No AWS and no dispatcher here: an invocation would fail with -32603, not -32602.
    error = with_client(mode, lambda client: refusal(client.read_resource(uri)))

    assert error.code == types.INVALID_PARAMS and error.data == {"uri": uri}


@pytest.mark.parametrize(("argument", "value", "expected"), [
    ("category", "cs.L", ["cs.LG", "cs.LO"]),
    ("year_start", "19", []),
    ("question", "graph", []),
])
def test_prompt_arguments_complete_from_the_tool_fields_they_feed(argument, value, expected):
    answer = with_client("2026-07-28", lambda client: client.complete(LITERATURE, {"name": argument, "value": value}))

    assert answer.completion.values == expected


def test_each_catalogue_completion_comes_from_its_source_of_truth(env):
    env.set(SCHOLAR_PROFILE="all")  # standards_for_requirement starts with a tool the default profile leaves out

    async def body(client: Client) -> list[types.CompleteResult]:
        standards = types.PromptReference(name="standards_for_requirement")
        related = types.PromptReference(name="related_work_section")
        explore = types.PromptReference(name="explore_toolset")
        return [await client.complete(standards, {"name": "body", "value": ""}),
                await client.complete(related, {"name": "format", "value": ""}),
                await client.complete(explore, {"name": "toolset", "value": ""}),
                await client.complete(LITERATURE, {"name": "category", "value": ""})]

    bodies, formats, toolsets, categories = with_client("2026-07-28", body)
    assert bodies.completion.values == list(BODIES)
    assert formats.completion.values == ["bibtex", "csl-json", "ris"]
    assert toolsets.completion.values == list(families())
    assert categories.completion.total == len(CATEGORIES) and len(categories.completion.values) == 100
    assert categories.completion.has_more is True


def test_a_value_matches_by_its_start_first_then_anywhere_in_any_case():
    answer = with_client("2026-07-28", lambda client: client.complete(LITERATURE, {"name": "category", "value": "ai"}))

    assert answer.completion.values[0] == "cs.AI"  # "cs.AI" contains it; nothing starts with "ai"


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize(("ref", "argument"), [
    (types.PromptReference(name="test_prompt_with_arguments"), "arg1"),
    (LITERATURE, "not_an_argument"),
    (types.ResourceTemplateReference(uri="test://template/{id}/data"), "id"),
    (types.ResourceTemplateReference(uri=LIBRARY_ITEM.uri_template), "id"),
])
def test_completing_an_unknown_prompt_template_or_argument_is_minus_32602(mode, ref, argument):
    error = with_client(mode, lambda client: refusal(client.complete(ref, {"name": argument, "value": ""})))

    assert error.code == types.INVALID_PARAMS


def test_a_paper_identifier_variable_completes_to_nothing_rather_than_failing():
    ref = types.ResourceTemplateReference(uri=PAPER_MARKDOWN.uri_template)

    answer = with_client("2026-07-28", lambda client: client.complete(ref, {"name": "id", "value": "10.1"}))

    assert (answer.completion.values, answer.completion.total) == ([], 0)


@pytest.mark.parametrize(("uri", "template", "values"), [
    ("scholar://library/lib_0123456789abcdef0123", "library_item", {"item_id": "lib_0123456789abcdef0123"}),
    ("scholar://library/lib_0123456789abcdef0123/pdf", "library_pdf", {"item_id": "lib_0123456789abcdef0123"}),
    ("scholar://paper/10.1073%2Fpnas.1414271111/markdown", "paper_markdown", {"id": "10.1073/pnas.1414271111"}),
    ("scholar://paper/10.1073/pnas.1414271111/markdown", "paper_markdown", {"id": "10.1073/pnas.1414271111"}),
    ("scholar://paper/arXiv:2305.03393/markdown", "paper_markdown", {"id": "arXiv:2305.03393"}),
])
def test_a_uri_is_taken_apart_into_its_template_and_decoded_values(uri, template, values):
    ref = parse_uri(uri)

    assert ref is not None and (ref.template.name, ref.values) == (template, values)


def test_a_built_uri_encodes_each_value_as_one_segment_and_parses_back():
    uri = PAPER_MARKDOWN.uri(id="10.1000/a b?c#d")

    assert uri == "scholar://paper/10.1000%2Fa%20b%3Fc%23d/markdown"
    assert parse_uri(uri).values == {"id": "10.1000/a b?c#d"}
    assert parse_uri("scholar://paper//markdown") is None
