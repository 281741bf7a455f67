"""The redirect-URI rows: one rule for registration (DCR) and client metadata documents (issue #31 items 2, 3).

Each hostile URI of the trial is refused by both doors; each good one is accepted by both. A Location header
never fails on a URI outside Latin-1 (one stored before the rule is percent-encoded, not a 500).
"""

from __future__ import annotations

import pytest

from scholar.gateway.auth.cimd import parse_document
from scholar.gateway.auth.errors import INVALID_CLIENT, INVALID_REDIRECT_URI, OAuthError
from scholar.gateway.auth.redirects import MAX_LENGTH, REFUSED_SCHEMES, check_redirect_uri
from scholar.gateway.auth.register import RegistrationRequest
from scholar.gateway.auth.wire import redirect, with_params

DOCUMENT = "https://client.example/oauth/client.json"

HOSTILE = [
    "javascript:alert(document.domain)//",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "http://evil.example/cb",
    "http://127.0.0.1.evil.example/cb",
    "https://client.example/cb#fragment",
    "https:///no-host",
    "/relative/cb",
    "https://例え.example/cb",
    "https://a.example/cb/€",
    "https://a.example/cb\u2028",
    "https://a.example/c b",
]

GOOD = [
    "https://client.example/cb",
    "https://xn--r8jz45g.example/cb",  # 例え as punycode: the ASCII form of the refused IRI
    "https://a.example/cb/%E2%82%AC",  # € percent-encoded
    "http://127.0.0.1:33418/callback",
    "http://localhost/cb",
    "http://[::1]:8080/cb",
    "cursor://anysphere.cursor-retrieval/oauth/callback",
]


def _document(uris: list[str]) -> dict[str, object]:
    return {"client_id": DOCUMENT, "client_name": "Doc", "redirect_uris": uris}


@pytest.mark.parametrize("uri", HOSTILE)
def test_registration_refuses_each_hostile_redirect_uri(uri):
    with pytest.raises(OAuthError) as caught:
        RegistrationRequest.model_validate({"redirect_uris": [uri]})
    assert caught.value.error == INVALID_REDIRECT_URI


@pytest.mark.parametrize("uri", HOSTILE)
def test_a_metadata_document_listing_a_hostile_redirect_uri_is_refused_whole(uri):
    with pytest.raises(OAuthError) as caught:
        parse_document(DOCUMENT, _document(["https://client.example/cb", uri]))  # one good URI does not save it
    assert caught.value.error == INVALID_CLIENT


@pytest.mark.parametrize("uri", GOOD)
def test_both_doors_accept_the_same_good_redirect_uris(uri):
    assert RegistrationRequest.model_validate({"redirect_uris": [uri]}).redirect_uris == [uri]
    assert parse_document(DOCUMENT, _document([uri])).redirect_uris == [uri]


@pytest.mark.parametrize("uri", ["https://例え.example/cb", "https://a.example/cb/€"])
def test_a_redirect_to_a_uri_stored_before_the_rule_is_percent_encoded_not_a_failure(uri):
    answer = redirect(with_params(uri, {"code": "c", "state": "s"}))
    location = answer.headers["location"]
    assert answer.status_code == 302 and location.isascii()
    assert location.endswith("?code=c&state=s")


def test_a_plain_uri_goes_out_unchanged():
    uri = "http://127.0.0.1:9/callback?x=%2F&y=a+b"
    assert redirect(uri).headers["location"] == uri


# Generated from the rule's own table (issue #40 item 12): a scheme added to REFUSED_SCHEMES is tested the day it
# is added; the floor below makes removing one red as well.
KNOWN_REFUSED = {"javascript", "data", "file", "vbscript", "about", "blob", "ftp", "ws", "wss", "mailto",
                 "view-source", "jar", "filesystem"}


def test_no_refused_scheme_is_ever_dropped_from_the_table():
    assert REFUSED_SCHEMES >= KNOWN_REFUSED


@pytest.mark.parametrize("scheme", sorted(REFUSED_SCHEMES | KNOWN_REFUSED))
@pytest.mark.parametrize("spelling", [str.lower, str.upper])
def test_every_refused_scheme_is_refused_by_both_doors_in_any_case(scheme, spelling):
    uri = f"{spelling(scheme)}://client.example/cb"
    with pytest.raises(OAuthError) as caught:
        check_redirect_uri(uri)
    assert caught.value.error == INVALID_REDIRECT_URI and f"the {scheme}: scheme" in caught.value.description
    with pytest.raises(OAuthError):
        RegistrationRequest.model_validate({"redirect_uris": [uri]})
    with pytest.raises(OAuthError):
        parse_document(DOCUMENT, _document([uri]))


@pytest.mark.parametrize("uri", GOOD)
def test_the_length_limit_accepts_max_length_and_refuses_one_more(uri):
    at_limit = uri + "x" * (MAX_LENGTH - len(uri))
    assert check_redirect_uri(at_limit) == at_limit
    with pytest.raises(OAuthError) as caught:
        check_redirect_uri(at_limit + "x")
    assert caught.value.error == INVALID_REDIRECT_URI
