"""Token lifetime (issue #31 item 8): a token signed by our own key is refused when it lasts longer than we issue.

The tokens are made in the test with the local stack's KMS key, as ``test_attacks.py`` makes its forgeries.
"""

from __future__ import annotations

import base64
import json
import time

import anyio
import pytest

from scholar.core.config import get_settings
from scholar.gateway.auth.minting import _encode, mint_access_token
from scholar.gateway.bearer.scopes import READ
from scholar.gateway.bearer.verify import LEEWAY_S
from tests.oauth.conftest import kms_key_id

pytestmark = pytest.mark.e2e

TEN_YEARS_S = 10 * 365 * 86400


def _signed_in(flow) -> dict[str, object]:
    """The claims of a real sign-in's access token (its refresh family is live: only the lifetime differs)."""
    payload = flow.tokens(flow.client_id())["access_token"].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def _mint(flow, ttl_s: int) -> str:
    real = _signed_in(flow)
    return anyio.run(lambda: mint_access_token(
        key_id=kms_key_id(), issuer=flow.base, principal=str(real["sub"]),
        audience=flow.resource, client_id=str(real["client_id"]), scope=READ, fid=str(real["fid"]), ttl_s=ttl_s))[0]


def _status(flow, token: str) -> tuple[int, str]:
    answer = flow.mcp(token)
    return answer.status_code, answer.headers.get("www-authenticate", "")


def test_a_token_of_ours_made_to_last_ten_years_is_refused(flow):
    status, header = _status(flow, _mint(flow, TEN_YEARS_S))
    assert status == 401 and 'error="invalid_token"' in header


def test_a_token_one_leeway_past_what_we_issue_is_refused(flow):
    ttl = get_settings().oauth.access_ttl_s
    assert _status(flow, _mint(flow, ttl + LEEWAY_S + 1))[0] == 401


def test_a_token_without_iat_is_refused(flow):
    claims = {**_signed_in(flow), "jti": "no-iat", "exp": int(time.time()) + 300}
    del claims["iat"]
    status, header = _status(flow, _encode(claims, kms_key_id()))
    assert status == 401 and 'error="invalid_token"' in header


def test_the_same_token_at_the_lifetime_we_issue_is_accepted(flow):
    # The refusals above are the lifetime check's: the same claims minted at the issued lifetime pass
    assert _status(flow, _mint(flow, get_settings().oauth.access_ttl_s))[0] == 200
