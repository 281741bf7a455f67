"""The landing page (GET /) through the gateway's Lambda handler and the renderer itself."""

from __future__ import annotations

import sys
import types
from html.parser import HTMLParser

import pytest

from functions.gateway.app import lambda_handler
from scholar.core import aio
from scholar.core.catalogue import ALL_PROFILE, DEFAULT_PROFILE, PROFILES, Selection
from scholar.core.config import get_settings
from scholar.families import all_tools
from scholar.families.profiles import profile_tools, refusal
from scholar.gateway.mcp import landing
from scholar.gateway.mcp.tools import WRITE_TAG, visible_tools
from tests.events import load_event

MAX_PAGE_BYTES = 100 * 1024


class _Ids(HTMLParser):
    """The ids and data-client values of the page's elements."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.clients: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"] or "")
        if found.get("data-client"):
            self.clients.append(found["data-client"] or "")


def parsed(page: str) -> _Ids:
    ids = _Ids()
    ids.feed(page)
    return ids


def tools_on(page: str) -> set[str]:
    return {i.removeprefix("tool-") for i in parsed(page).ids if i.startswith("tool-")}


@pytest.fixture(autouse=True)
def _fresh_pages():
    landing._pages.clear()
    yield
    landing._pages.clear()


def get_root(lambda_context, **query: str) -> dict:
    event = load_event("api_rest_v1_landing")
    if query:
        event["queryStringParameters"] = query
        event["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()}
    return lambda_handler(event, lambda_context)


def test_get_root_answers_an_html_page_with_this_deployments_mcp_url_twice_in_a_row(lambda_context):
    first = get_root(lambda_context)
    second = get_root(lambda_context)

    assert first["statusCode"] == second["statusCode"] == 200
    assert first["headers"]["content-type"] == "text/html; charset=utf-8"
    assert "script-src" not in first["headers"]["content-security-policy"]  # default-src 'none': no scripts
    page = first["body"]
    assert second["body"] == page
    assert "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1/mcp" in page
    assert len(page.encode()) < MAX_PAGE_BYTES


def test_the_page_lists_the_default_profile_grouped_by_family_and_names_what_it_leaves_out(lambda_context):
    page = get_root(lambda_context)["body"]

    visible = visible_tools(get_settings(), Selection())
    assert tools_on(page) == {spec.name for spec in visible} == set(profile_tools(DEFAULT_PROFILE))
    assert {f"family-{spec.family}" for spec in visible} <= parsed(page).ids
    assert "This URL lists: profile default." in page
    assert "arxiv_search" in page and 'id="tool-arxiv_search"' not in page  # named as not listed, not described


def test_the_page_shows_what_each_profile_holds(lambda_context):
    page = get_root(lambda_context)["body"]

    assert {f"profile-{name}" for name in PROFILES} <= parsed(page).ids
    assert "<code>?profile=all</code>" in page
    for name in profile_tools(DEFAULT_PROFILE):
        assert f"<code>{name}</code>" in page


def test_the_profile_query_lists_every_tool_with_its_parameters(lambda_context):
    page = get_root(lambda_context, profile=ALL_PROFILE)["body"]

    assert tools_on(page) == {spec.name for spec in visible_tools(get_settings(), None)}
    assert "<code>seed_ids</code>" in page and "mermaid" in page  # get_citation_graph's parameters
    assert "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1/mcp?profile=all" in page


def test_read_only_mode_hides_write_tools_on_the_page_as_in_tools_list(env, lambda_context):
    env.set(SCHOLAR_READ_ONLY="true")

    shown = tools_on(get_root(lambda_context, profile=ALL_PROFILE)["body"])

    writes = {name for name, spec in all_tools().items() if WRITE_TAG in spec.tags}
    assert writes and not (shown & writes)
    assert shown == {spec.name for spec in visible_tools(get_settings(), None)}


def test_the_toolsets_query_narrows_the_page_and_its_snippets(lambda_context):
    page = get_root(lambda_context, toolsets="arxiv")["body"]

    arxiv = Selection(toolsets=frozenset({"arxiv"}))
    assert tools_on(page) == {spec.name for spec in visible_tools(get_settings(), arxiv)} != set()
    assert "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1/mcp?toolsets=arxiv" in page


def test_a_url_naming_an_unknown_toolset_or_profile_is_refused_with_400_and_nothing_is_cached(lambda_context):
    refused = {"toolsets": Selection(toolsets=frozenset({"arxiv", "everything"})), "profile": Selection("everything")}
    for query, value in (("toolsets", "arxiv,everything"), ("profile", "everything")):
        answer = get_root(lambda_context, **{query: value})

        assert answer["statusCode"] == 400
        assert answer["body"] == refusal(refused[query]).message
    assert landing._pages == {}


def test_snippets_cover_the_common_clients_and_carry_the_api_key_header_when_the_deployment_wants_one(env):
    env.set(SCHOLAR_AUTH_MODE="ApiKey")
    url = "https://api.example.org/prod/mcp"

    page = landing.render_page(get_settings(), Selection(), url, [])

    assert parsed(page).clients == ["Claude Code", "Claude Desktop", "Cursor", "VS Code", "MCP Inspector"]
    assert f"claude mcp add --transport http scholar {url} --header &#34;x-api-key: &lt;your-api-key&gt;&#34;" in page
    assert "${input:scholar-key}" in page
    assert page.count(url) >= 6  # the endpoint line and every snippet


def test_an_oauth_deployment_gives_the_url_alone_and_names_the_oauth_clients(env):
    env.set(SCHOLAR_AUTH_MODE="OAuth")

    page = landing.render_page(get_settings(), Selection(), "https://h/v1/mcp", [])
    snippets = landing.snippets("https://h/v1/mcp", get_settings().auth_mode)
    texts = "".join(s.text for s in snippets)

    assert [s.client for s in snippets][:3] == ["Claude.ai / Claude Desktop", "ChatGPT", "Claude Code"]
    assert "x-api-key" not in texts and "Authorization" not in texts  # the clients sign in themselves
    assert all("https://h/v1/mcp" in s.text for s in snippets)
    assert "Sign in with OAuth" in page


def test_everything_the_page_prints_is_escaped():
    page = landing.render_page(get_settings(), Selection(), 'https://h/mcp"><script>alert(1)</script>', [])

    assert "<script>" not in page
    assert "&lt;script&gt;" in page


def test_a_host_header_that_is_not_a_host_name_is_not_echoed():
    scope = {"type": "http", "path": "/", "headers": [(b"host", b'evil"><b>x</b>')], "scheme": "http"}

    assert landing.mcp_url(scope) == "http://localhost/mcp"


def test_a_local_request_gets_its_own_host_and_port():
    scope = {"type": "http", "path": "/", "headers": [(b"host", b"127.0.0.1:3000")], "scheme": "http"}

    assert landing.mcp_url(scope) == "http://127.0.0.1:3000/mcp"


def test_an_http_api_default_stage_adds_no_prefix():
    event = {"rawPath": "/", "requestContext": {"stage": "$default", "http": {"path": "/"}}}
    headers = [(b"host", b"x.example.org"), (b"x-forwarded-proto", b"https")]
    scope = {"path": "/", "headers": headers, "aws.event": event}

    assert landing.mcp_url(scope) == "https://x.example.org/mcp"


def test_the_page_is_built_once_per_url_and_mode():
    scope = {"type": "http", "path": "/", "headers": [(b"host", b"127.0.0.1:3000")], "scheme": "http"}

    first = landing.landing_page(scope)

    assert landing.landing_page(scope) is first
    assert len(landing._pages) == 1


def test_without_the_health_package_the_page_shows_no_source_status(monkeypatch):
    monkeypatch.delitem(sys.modules, landing.HEALTH_HOOK_MODULE, raising=False)

    page = landing.render_page(get_settings(), Selection(), "http://h/mcp", landing.source_status())

    assert 'id="status"' not in page


def test_with_the_health_hook_each_sources_status_is_shown(monkeypatch):
    hook = types.ModuleType(landing.HEALTH_HOOK_MODULE)
    hook.source_status = lambda: [{"source": "s2", "status": "ok"}, {"source": "crossref", "status": "down",
                                                                     "detail": "5xx in the last hour"}]
    monkeypatch.setitem(sys.modules, landing.HEALTH_HOOK_MODULE, hook)

    page = landing.render_page(get_settings(), Selection(), "http://h/mcp", landing.source_status())

    assert 'id="status"' in page
    assert '<td class="status-down">down</td><td>5xx in the last hour</td>' in page


def test_get_on_the_mcp_path_still_answers_405(lambda_context):
    event = load_event("api_rest_v1_landing")
    event["path"] = "/mcp"

    assert lambda_handler(event, lambda_context)["statusCode"] == 405


def test_head_answers_the_headers_without_the_page():
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "HEAD", "path": "/", "headers": [(b"host", b"127.0.0.1:3000")], "scheme": "http"}
    aio.run(landing.respond(scope, send))

    start, body = sent
    assert start["status"] == 200 and int(dict(start["headers"])[b"content-length"]) > 10_000
    assert body["body"] == b""
