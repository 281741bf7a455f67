"""The one way to talk to an upstream: paced, retried within a time budget, errors translated once.

One ``httpx.AsyncClient`` per source and event loop (an AsyncClient belongs to the loop it was
opened on: encode/httpx#2473). 429 and 5xx are retried here, honouring Retry-After, while the call's
time budget lasts; after that the failure is raised as a typed error (``RateLimitedError``,
``UpstreamError``, ``UpstreamTimeoutError``) and the caller decides (queue, report, fall back).
Error messages carry the source, status and a trimmed body, never the query string (keys live there).
A request goes only to the path its source module built (``checked_url``; docs/security.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import logging
import re
import ssl
import time
from collections.abc import AsyncIterator, Callable, Mapping
from functools import cache
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import httpx

from scholar.core import aio, redaction
from scholar.core.config import get_settings
from scholar.core.errors import (
    InvalidArgumentError,
    NotFoundError,
    RateLimitedError,
    UpstreamError,
    UpstreamTimeoutError,
)
from scholar.core.urlpath import UNSAFE_PATH
from scholar.core.usage_hooks import note_attempt
from scholar.sources.registry import SOURCES, base_url
from scholar.store.limiter import pace

logger = logging.getLogger(__name__)

TIMEOUT = httpx.Timeout(15.0, connect=5.0)
_BODY_EXCERPT = 200
_MAX_BACKOFF_S = 8.0

# How fast each source answered lately in this process (an exponential moving average of the last answers):
# a caller with a deadline uses it to skip a request that could not answer in time anyway.
_LATENCY_WEIGHT = 0.3
_latency: dict[str, float] = {}

TransportFactory = Callable[[str], httpx.AsyncBaseTransport | None]
# Query parameters, as httpx takes them: by name, or as (name, value) pairs where a name repeats or the order counts.
QueryParams = Mapping[str, Any] | list[tuple[str, Any]]
_transport_factory: TransportFactory | None = None
_clients: dict[tuple[int, str], httpx.AsyncClient] = {}


async def close_clients() -> None:
    """Close every client opened on the running loop."""
    loop_id = id(asyncio.get_running_loop())
    for key in [k for k in _clients if k[0] == loop_id]:
        await _clients.pop(key).aclose()



def set_transport_factory(factory: TransportFactory | None) -> None:
    """Use another transport per source (tests, the local stack); ``None`` restores the default."""
    global _transport_factory
    _transport_factory = factory
    if _clients:
        aio.run(close_clients())


@cache
def tls_context(trust_env: bool = True) -> ssl.SSLContext:
    """httpx's default certificate verification (``SSL_CERT_FILE``/``SSL_CERT_DIR`` when ``trust_env``, else
    certifi's bundle), built once per process: httpx builds it and loads the whole CA bundle for every client
    otherwise (~30 ms of CPU), and a one-off client (a caller's own loop, each guarded PDF fetch) paid it per request.
    One context serves any number of clients and threads; the server name is per connection."""
    return httpx.create_ssl_context(trust_env=trust_env)


def _new_client(source: str) -> httpx.AsyncClient:
    spec = SOURCES[source]
    transport = _transport_factory(source) if _transport_factory else None
    return httpx.AsyncClient(
        verify=tls_context(),
        timeout=TIMEOUT,
        limits=httpx.Limits(max_connections=spec.concurrency * 2, max_keepalive_connections=spec.concurrency),
        headers={"User-Agent": get_settings().user_agent},
        transport=transport,
        follow_redirects=True,
    )


@contextlib.asynccontextmanager
async def client_for(source: str) -> AsyncIterator[httpx.AsyncClient]:
    """The client of ``source``: kept for the process loop (connection reuse), one-off on any other loop."""
    loop = asyncio.get_running_loop()
    if not aio.is_process_loop(loop):
        # A caller's own loop (scripts, tests with asyncio.run) may close at any time: never keep a client on it.
        async with _new_client(source) as client:
            yield client
        return
    key = (id(loop), source)
    kept = _clients.get(key)
    if kept is None or kept.is_closed:
        if not _clients:
            aio.on_shutdown(close_clients)
        kept = _clients[key] = _new_client(source)
    yield kept


def typical_latency(source: str) -> float:
    """Seconds ``source`` took to answer lately in this process (0 before its first answer)."""
    return _latency.get(source, 0.0)


def _note_latency(source: str, seconds: float) -> None:
    old = _latency.get(source)
    _latency[source] = seconds if old is None else old + _LATENCY_WEIGHT * (seconds - old)


def interval_for(source: str) -> float:
    settings = get_settings()
    spec = SOURCES[source]
    interval = spec.interval_s
    if spec.keyed_interval_s is not None and spec.key_setting and settings.secrets.has(spec.key_setting):
        interval = spec.keyed_interval_s
    return interval * settings.pace_scale


def retry_after_seconds(response: httpx.Response) -> float | None:
    """Parse Retry-After (seconds or an HTTP date)."""
    raw = response.headers.get("Retry-After")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(raw) if raw else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


_KEYISH = re.compile(r"(?i)\b(api[_-]?key|key|token|access_token|secret|password|mailto|email)=([^&\s\"']+)")


def scrub(text: str) -> str:
    """Remove our secrets and anything that looks like a credential parameter from upstream text.

    Secrets are removed by value, as given and percent-encoded (upstreams echo request URLs): those set in
    the environment and every secret loaded at run time (SSM parameters; ``scholar.core.redaction``).
    """
    values = {s.get_secret_value() for s in get_settings().secrets.values.values()} | redaction.known_secrets()
    for value in sorted((v for v in values if v), key=len, reverse=True):
        for form in {value, quote(value, safe=""), quote(value)}:
            text = text.replace(form, "***")
    return _KEYISH.sub(lambda m: f"{m.group(1)}=***", text)


def excerpt(response: httpx.Response) -> str:
    """The start of an upstream body for an error message: one line, trimmed, scrubbed."""
    text = response.text.strip().replace("\n", " ")
    return scrub(text[: _BODY_EXCERPT * 2])[:_BODY_EXCERPT]


async def request(
    source: str,
    method: str,
    path: str,
    *,
    params: QueryParams | None = None,
    json_body: Any = None,
    headers: Mapping[str, str] | None = None,
    budget_s: float | None = None,
    content: bytes | str | None = None,
) -> httpx.Response:
    """Send one logical request to ``source``; retry 429/5xx/timeouts while the budget lasts.

    Args:
        source: a name from the source registry.
        method: HTTP method.
        path: the full public path, starting with "/".
        params: query parameters.
        json_body: a JSON body.
        headers: extra headers (credentials go here, never into messages).
        budget_s: seconds this call may spend on retries (default: the configured budget).
        content: a raw body (form or plain text, e.g. EPO OPS' token request and bulk numbers).

    Returns:
        The response, for any status but 429 and 5xx (callers read 404s and 400s themselves).

    Raises:
        RateLimitedError: still 429 when the budget ran out.
        UpstreamTimeoutError: no answer in time.
        UpstreamError: 5xx after the budget, or the connection failed.
    """
    settings = get_settings()
    url = checked_url(source, base_url(source, settings), path)
    budget = settings.retry_budget_s if budget_s is None else budget_s
    deadline = time.monotonic() + budget
    attempt = 0
    while True:
        attempt += 1
        await pace(source, interval_for(source), margin_s=typical_latency(source))
        sent = time.perf_counter()
        try:
            async with client_for(source) as client:
                response = await client.request(
                    method, url, params=params, json=json_body, content=content, headers=headers
                )
        except httpx.TimeoutException as exc:
            note_attempt(source, "timeout", time.perf_counter() - sent)
            if _can_wait(deadline, _backoff(attempt)):
                await asyncio.sleep(_backoff(attempt))
                continue
            raise UpstreamTimeoutError(f"{source} did not answer in time ({path})", source=source) from exc
        except httpx.HTTPError as exc:
            note_attempt(source, "connect", time.perf_counter() - sent)
            if _can_wait(deadline, _backoff(attempt)):
                await asyncio.sleep(_backoff(attempt))
                continue
            raise UpstreamError(f"{source} could not be reached: {type(exc).__name__}", source=source) from exc
        status = response.status_code
        took = time.perf_counter() - sent
        note_attempt(source, status, took, len(response.content))
        _note_latency(source, took)
        if status == 429 or status >= 500:
            wait = retry_after_seconds(response)
            wait = _backoff(attempt) if wait is None else wait
            if _can_wait(deadline, wait):
                logger.info("retrying %s %s after %s (%.1fs)", source, path, status, wait)
                await asyncio.sleep(wait)
                continue
            if status == 429:
                raise RateLimitedError(
                    f"{source} is rate limiting us (HTTP 429)",
                    source=source,
                    status=429,
                    retry_after_s=retry_after_seconds(response),
                )
            raise UpstreamError(
                f"{source} failed with HTTP {status}: {excerpt(response)}", source=source, status=status
            )
        return response


def checked_url(source: str, base: str, path: str) -> str:
    """``base + path``, refused when the client would send another path than the one built (docs/security.md).

    A path holds no query or fragment (those go in ``params``), and after the client's normalisation
    (dot segments collapsed, characters encoded) it must still be the path the source module built: an
    identifier that was not encoded with ``scholar.core.urlpath.segment`` cannot move the request elsewhere.

    Raises:
        InvalidArgumentError: reason ``unsafe_path``; nothing was sent.
    """
    url = f"{base}{path}"
    try:
        sent = httpx.URL(url).path
    except httpx.InvalidURL as exc:
        raise _unsafe_path(source, path) from exc
    if not path.startswith("/") or "?" in path or "#" in path or sent != unquote(urlsplit(base).path + path):
        raise _unsafe_path(source, path)
    return url


def _unsafe_path(source: str, path: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"refused to send a request to {source}: an identifier would change the request path",
        source=source,
        reason=UNSAFE_PATH,
        hint="Identifiers may not hold dot segments ('/../') or control characters; check the identifier.",
    )


def _backoff(attempt: int) -> float:
    return min(_MAX_BACKOFF_S, 0.25 * 2 ** (attempt - 1))


def _can_wait(deadline: float, wait: float) -> bool:
    return time.monotonic() + wait <= deadline


def parse_json(source: str, response: httpx.Response) -> Any:
    """Decode a JSON body, refusing HTML or truncated answers that came with a 2xx.

    Raises:
        UpstreamError: the body is not JSON.
    """
    ctype = response.headers.get("content-type", "")
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        kind = "an HTML page" if "html" in ctype or response.text.lstrip().startswith("<") else "malformed JSON"
        raise UpstreamError(
            f"{source} answered HTTP {response.status_code} with {kind} (content-type: {ctype or 'none'})",
            source=source,
            status=response.status_code,
        ) from exc


def raise_for_status(source: str, response: httpx.Response, *, what: str) -> None:
    """Translate a non-2xx answer: 404 → NotFoundError, other 4xx → UpstreamError naming the status."""
    status = response.status_code
    if status < 400:
        return
    if status == 404:
        raise NotFoundError(f"{source} has no {what}", source=source, status=404)
    retryable = status in (408, 409, 425)
    raise UpstreamError(
        f"{source} refused the request for {what} (HTTP {status}): {excerpt(response)}",
        source=source,
        status=status,
        retryable=retryable,
        hint=None if retryable else "The source refused this request; retrying it unchanged will not help.",
    )


async def get_json(
    source: str,
    path: str,
    *,
    what: str,
    params: QueryParams | None = None,
    headers: Mapping[str, str] | None = None,
    budget_s: float | None = None,
) -> Any:
    """GET a JSON resource; 404 → NotFoundError, other failures typed (see ``request``)."""
    response = await request(source, "GET", path, params=params, headers=headers, budget_s=budget_s)
    raise_for_status(source, response, what=what)
    return parse_json(source, response)


async def post_json(
    source: str,
    path: str,
    body: Any,
    *,
    what: str,
    params: QueryParams | None = None,
    headers: Mapping[str, str] | None = None,
    budget_s: float | None = None,
) -> Any:
    """POST a JSON body and decode the JSON answer (errors as in ``get_json``)."""
    response = await request(source, "POST", path, params=params, json_body=body, headers=headers, budget_s=budget_s)
    raise_for_status(source, response, what=what)
    return parse_json(source, response)
