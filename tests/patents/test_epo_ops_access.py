"""OPS access: one token shared through the cache, one refresh on 401, refused credentials are forbidden."""

from __future__ import annotations

import base64

import httpx
import pytest

from scholar.core.config import get_settings
from scholar.core.errors import FORBIDDEN, UNAVAILABLE, ForbiddenError, ScholarError
from scholar.gateway.mcp.tools import visible_tools
from scholar.sources import epo_ops, epo_ops_auth
from scholar.store.cache import forget_memory
from tests.patents.helpers import KEY, OPS, SECRET, TOKEN, XML, ops_fixture, run

BIBLIO = f"{OPS}/published-data/publication/docdb/EP.2400812.A1/biblio"


async def biblio() -> bytes:
    response = await epo_ops.call("GET", epo_ops.publication("docdb", "EP.2400812.A1", "biblio"),
                                  service="retrieval", what="biblio")
    return response.content


def test_the_token_request_sends_client_credentials_and_the_token_is_used_as_bearer(ops):
    route = ops.get(BIBLIO).respond(200, content=ops_fixture("biblio_EP2400812A1_docdb.xml"), headers=XML)

    run(biblio)

    token_request = ops.routes["token"].calls.last.request
    assert token_request.content == b"grant_type=client_credentials"
    assert token_request.headers["Authorization"] == "Basic " + base64.b64encode(f"{KEY}:{SECRET}".encode()).decode()
    assert route.calls.last.request.headers["Authorization"] == "Bearer THIS_IS_THE_TOKEN"


def test_every_instance_reuses_the_one_cached_token(aws, ops):
    ops.get(BIBLIO).respond(200, content=ops_fixture("biblio_EP2400812A1_docdb.xml"), headers=XML)

    run(biblio)
    forget_memory()  # another Lambda instance: nothing in memory, the same CacheTable
    epo_ops_auth.forget()
    run(biblio)

    assert ops.routes["token"].call_count == 1


def test_a_401_refreshes_the_token_once_and_retries(aws, ops):
    route = ops.get(BIBLIO).mock(side_effect=[
        httpx.Response(401, text="<fault><code>CLIENT.InvalidAccessToken</code></fault>"),
        httpx.Response(200, content=ops_fixture("biblio_EP2400812A1_docdb.xml"), headers=XML),
    ])

    body = run(biblio)

    assert body.startswith(b"<?xml")
    assert route.call_count == 2
    assert ops.routes["token"].call_count == 2


def test_a_second_401_after_the_refresh_is_forbidden_not_a_loop(aws, ops):
    route = ops.get(BIBLIO).respond(401, text="invalid_access_token")
    with pytest.raises(ForbiddenError):
        run(biblio)
    assert route.call_count == 2


def test_refused_credentials_are_forbidden_naming_the_settings(ops):
    ops.post(TOKEN).respond(401, json={"error": "invalid_client"})
    with pytest.raises(ScholarError) as caught:
        run(biblio)
    assert caught.value.code == FORBIDDEN
    assert caught.value.reason == "credentials_refused"
    assert "SCHOLAR_EPO_CONSUMER_KEY" in (caught.value.hint or "")
    assert KEY not in caught.value.message and SECRET not in caught.value.message


def test_without_credentials_no_ops_request_is_made_and_patent_tools_are_hidden(upstream, env):
    env.set(SCHOLAR_EPO_CONSUMER_KEY=None, SCHOLAR_EPO_CONSUMER_SECRET=None, SCHOLAR_RETRY_BUDGET_S="0")
    with pytest.raises(ScholarError) as caught:
        run(biblio)
    assert caught.value.code == UNAVAILABLE
    assert not [c for c in upstream.calls if "/epo_ops/" in str(c.request.url)]
    names = {spec.name for spec in visible_tools(get_settings(), None)}
    assert not names & {"search_patents", "get_patent", "get_citing_patents", "fetch_patent_pdf"}


def test_with_credentials_the_patent_tools_are_listed(ops):
    names = {spec.name for spec in visible_tools(get_settings(), None)}
    assert {"search_patents", "get_patent", "get_citing_patents", "fetch_patent_pdf"} <= names
