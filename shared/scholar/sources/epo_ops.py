"""EPO Open Patent Services (OPS 3.2) client: paths, the bearer token, fair use and OPS's own refusals.

Every identifier is one percent-encoded path segment (``quote(x, safe='')``): a number such as
``EP.2400812.A1`` or a link segment from an images inquiry can never move the request elsewhere. Each call
names its OPS service (search, retrieval, inpadoc, images, other) so ``epo_ops_fairuse`` paces it by that
service's light. OPS refusals become typed errors here: 401 / ``invalid_access_token`` → one token
refresh and one retry; 403 fair use or a black light → ``rate_limited`` with ``retry_after_s``; the weekly
quota used up → ``unavailable``; 404 → ``not_found`` (callers decide whether that is "no hits" or "absent").
Parsing lives in ``scholar.sources.epo_ops_biblio`` and in the patents family.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

from scholar.core.errors import (
    ForbiddenError,
    InvalidArgumentError,
    NotFoundError,
    RateLimitedError,
    UnavailableError,
    UpstreamError,
)
from scholar.sources import epo_ops_auth, epo_ops_fairuse, http

SOURCE = "epo_ops"
API = "/3.2/rest-services"
# OPS answers at most this many documents per bulk (multi-number) request.
BULK_SIZE = 100
REJECTION_HEADER = "X-Rejection-Reason"
_HOURLY, _WEEKLY = "IndividualQuotaPerHour", "RegisteredQuotaPerWeek"
FAIR_USE_HINT = "EPO OPS fair use: wait retry_after_s, then ask again; cached patents still answer at once."


def segment(value: str) -> str:
    """One path segment: every character that is not unreserved is percent-encoded.

    Raises:
        InvalidArgumentError: ``.`` or ``..``, which quoting keeps and HTTP clients resolve as dot segments.
    """
    if value in (".", ".."):
        raise InvalidArgumentError(f"{value!r} cannot be a path segment of an EPO OPS request", field="identifier")
    return quote(value, safe="")


def path(*segments: str) -> str:
    """``/3.2/rest-services/<seg>/<seg>…`` with each segment encoded."""
    return API + "/" + "/".join(segment(s) for s in segments)


def publication(ref_format: str, reference: str, *tail: str) -> str:
    """``published-data/publication/<format>/<reference>/<endpoint>``."""
    return path("published-data", "publication", ref_format, reference, *tail)


async def call(
    method: str,
    request_path: str,
    *,
    service: str,
    what: str,
    params: Mapping[str, Any] | None = None,
    content: str | None = None,
    accept: str = "application/xml",
) -> httpx.Response:
    """Send one authenticated OPS request and return its 2xx answer.

    Args:
        method: GET or POST.
        request_path: a path built by ``path`` / ``publication``.
        service: the OPS throttling service (search, retrieval, inpadoc, images, other).
        what: what is asked for, for error messages ("biblio of EP.2400812.A1").
        params: query parameters (``q``, ``Range``).
        content: a plain-text body (bulk numbers).
        accept: the media type wanted.

    Raises:
        NotFoundError: OPS has no such document / no hits (404).
        RateLimitedError: fair-use rejection, hourly quota, or a black light.
        UnavailableError: the weekly quota is used up, or no credentials are configured.
        ForbiddenError: OPS refused our credentials.
        UpstreamError: any other failure (a 400 keeps its status for the caller to translate).
    """
    headers = {"Accept": accept}
    if content is not None:
        headers["Content-Type"] = "text/plain"
    rejected: str | None = None
    for attempt in (1, 2):
        await epo_ops_fairuse.before_request(service)
        token = await epo_ops_auth.access_token(rejected=rejected)
        headers["Authorization"] = f"Bearer {token}"
        response = await http.request(SOURCE, method, request_path, params=params, content=content, headers=headers)
        epo_ops_fairuse.observe(response.headers)
        if attempt == 1 and _token_rejected(response):
            rejected = token  # the shared token expired early or was revoked: refresh it once
            continue
        return _checked(response, service=service, what=what)
    raise ForbiddenError(
        "EPO OPS refused a freshly issued access token", source=SOURCE, status=401, hint=epo_ops_auth.SETTINGS_HINT
    )


def _token_rejected(response: httpx.Response) -> bool:
    if response.status_code == 401:
        return True
    return response.status_code in (400, 403) and "invalid_access_token" in response.text.lower()


def _checked(response: httpx.Response, *, service: str, what: str) -> httpx.Response:
    status = response.status_code
    if status < 400:
        return response
    if status == 401:
        raise ForbiddenError("EPO OPS refused a freshly issued access token", source=SOURCE, status=401,
                             hint=epo_ops_auth.SETTINGS_HINT)
    if status == 403:
        raise _refusal(response, service)
    if status == 404:
        raise NotFoundError(f"EPO OPS has no {what}", source=SOURCE, status=404,
                            hint="Check the publication number and kind code (EP1234567A1); get_patent "
                                 "accepts any form.")
    http.raise_for_status(SOURCE, response, what=what)
    raise UpstreamError(f"EPO OPS answered HTTP {status} for {what}", source=SOURCE, status=status)


def _refusal(response: httpx.Response, service: str) -> Exception:
    """A 403: fair use (hourly quota, black light), the weekly quota, or a plain refusal."""
    reason = response.headers.get(REJECTION_HEADER, "")
    body = response.text.lower()
    if _WEEKLY.lower() in reason.lower():
        return UnavailableError(
            "EPO OPS: this server's weekly data quota (RegisteredQuotaPerWeek) is used up; patent tools "
            "answer again when the quota resets",
            source=SOURCE, status=403, reason="weekly_quota_exhausted",
            hint="Cached patents still answer; new OPS requests work again after the weekly reset.",
        )
    throttling = epo_ops_fairuse.parse_throttling(response.headers.get(epo_ops_fairuse.THROTTLING_HEADER))
    black = epo_ops_fairuse.black_retry_after(throttling, service)
    if _HOURLY.lower() in reason.lower():
        retry_after = 3600 - time.time() % 3600
    elif black is not None:
        retry_after = black
    else:
        retry_after = http.retry_after_seconds(response) or epo_ops_fairuse.BLACK_PAUSE_S
    if reason or black is not None or "fair use" in body:
        return RateLimitedError(
            f"EPO OPS rejected the request under its fair-use policy ({reason or 'fair use'})",
            source=SOURCE, status=403, retry_after_s=retry_after, reason="fair_use", hint=FAIR_USE_HINT,
        )
    return ForbiddenError(f"EPO OPS refused the request (HTTP 403): {http.excerpt(response)}", source=SOURCE,
                          status=403, hint=epo_ops_auth.SETTINGS_HINT)
