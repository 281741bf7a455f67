"""Token revocation (RFC 7009): a refresh token or an access token of ours revokes its whole family.

The client authenticates as at the token endpoint; a token that is not its own, unknown or malformed is
answered 200 all the same (RFC 7009 §2.2: the client learns nothing). An access token is recognised by its
verified signature (``scholar.gateway.bearer.verify``); the gateway stops accepting the family's access tokens within
its status cache time (``scholar.gateway.bearer.revocation``).
"""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import Response

from scholar.core.config import get_settings
from scholar.gateway.auth.clients import authenticate_client
from scholar.gateway.auth.metadata import Endpoints
from scholar.gateway.auth.token import family_of
from scholar.gateway.auth.wire import base, json_response, read_form
from scholar.gateway.bearer.verify import TokenRefused, verify_access_token
from scholar.store.auth import AuthStore, token_hash


async def _family_of_access_token(token: str, endpoints: Endpoints) -> tuple[str, str] | None:
    key_id = get_settings().oauth.signing_key
    if not key_id or token.count(".") != 2:
        return None
    from scholar.core.aio import off_loop  # noqa: PLC0415  # the first verification may read KMS

    try:
        claims = await off_loop(verify_access_token, token, key_id=key_id, issuer=endpoints.issuer,
                                audience=endpoints.resource)
    except TokenRefused:
        return None
    return claims.fid, claims.client_id


async def revoke(request: Request) -> Response:
    """``POST /oauth/revoke``."""
    endpoints = Endpoints(base(request))
    store = AuthStore()
    form = await read_form(request)
    client = await authenticate_client(form, request.headers.get("authorization"), store)
    presented = form.get("token") or ""
    fid = family_of(presented) if presented.count(".") == 1 else None
    if fid is not None:
        family = await store.get_family(fid)
        digest = token_hash(presented)
        if family is not None and family.client_id == client.client_id and (
                hmac.compare_digest(digest, family.current) or digest in family.previous):
            await store.revoke_family(fid)
    else:
        found = await _family_of_access_token(presented, endpoints)
        if found is not None and found[1] == client.client_id:
            await store.revoke_family(found[0])
    return json_response({})
