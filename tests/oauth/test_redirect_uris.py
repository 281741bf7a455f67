"""Redirect URIs end to end (issue #31 items 2, 3): a metadata document is held to DCR's rule, and never a 500.

The trial's findings: a document listing ``javascript:…``, ``data:…`` or ``http://evil.example/cb`` got codes
sent there (302 ``Location: javascript:…?code=…``); an IRI accepted by DCR failed every authorization with a 500.
"""

from __future__ import annotations

import json

import pytest

from scholar.gateway.auth.errors import INVALID_REDIRECT_URI
from tests.oauth.flow import REDIRECT, pkce

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("hostile", ["javascript:alert(document.domain)//", "data:text/html,<script>alert(1)</script>",
                                     "http://evil.example/cb"])
def test_a_metadata_document_with_a_hostile_redirect_uri_gets_no_code_anywhere(flow, documents, hostile):
    # Given a document that lists a hostile redirect URI beside a good one
    path = f"/hostile-{abs(hash(hostile))}.json"
    url = documents.url(path)
    documents.serve(path, json.dumps({"client_id": url, "redirect_uris": [REDIRECT, hostile]}).encode())
    _, challenge = pkce()
    # When either URI is asked for, Then the whole document is refused on our own page: no redirect at all
    for redirect_uri in (hostile, REDIRECT):
        answer = flow.authorize(flow.authorize_params(url, challenge, redirect_uri=redirect_uri))
        assert answer.status_code == 400, answer.text
        assert "location" not in answer.headers


@pytest.mark.parametrize("iri", ["https://例え.example/cb", "https://a.example/cb/€"])
def test_registration_refuses_a_redirect_uri_outside_ascii_so_no_authorization_can_fail_on_it(flow, iri):
    answer = flow.register([iri])
    assert answer.status_code == 400
    assert answer.json()["error"] == INVALID_REDIRECT_URI
