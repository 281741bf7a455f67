"""The upstream client (scholar.sources.http): User-Agent, retries within the budget, typed errors, no secrets in text.

Upstream answers here are synthetic (status codes and headers are the point); recorded bodies are used where
one exists. Waits are kept under a second: Retry-After 0/1 or longer than the budget (reported at once).
"""

import asyncio
import email.utils
import json
import time
from types import SimpleNamespace

import httpx
import pytest

from scholar.core import aio
from scholar.core.config import PRODUCT_AGENT
from scholar.core.errors import (
    NOT_FOUND,
    RATE_LIMITED,
    TIMEOUT,
    UPSTREAM_ERROR,
    NotFoundError,
    RateLimitedError,
    UpstreamError,
    UpstreamTimeoutError,
)
from scholar.sources import http, openalex

PATH = "/graph/v1/paper/DOI:10.1073/pnas.1414271111"
ROUTE = f"/s2{PATH}"
SECRET = "sk-live-0123456789abcdef"


@pytest.fixture
def fast(env, upstream):
    """A 2 s retry budget and a respx router for every source."""
    env(SCHOLAR_RETRY_BUDGET_S="2")
    return upstream


def get(params=None):
    return aio.run(http.get_json("s2", PATH, what="paper", params=params))


def test_the_user_agent_names_the_project_and_the_contact_email(env, fast):
    env(SCHOLAR_CONTACT_EMAIL="ops@example.org")
    route = fast.get(ROUTE).respond(200, json={"paperId": "x"})
    get()
    agent = route.calls.last.request.headers["User-Agent"]
    assert agent.startswith(PRODUCT_AGENT)
    assert "ops@example.org" in agent


def test_the_request_goes_to_the_proxy_base_plus_the_source_name_and_public_path(fast):
    route = fast.get(ROUTE).respond(200, json={})
    get({"fields": "title"})
    assert str(route.calls.last.request.url).startswith(f"http://upstream.test/s2{PATH}?")


def test_a_429_with_retry_after_is_retried_within_the_budget_then_succeeds(fast):
    route = fast.get(ROUTE)
    route.side_effect = [httpx.Response(429, headers={"Retry-After": "0"}), httpx.Response(200, json={"ok": 1})]
    assert get() == {"ok": 1}
    assert route.call_count == 2


def test_a_429_beyond_the_budget_is_rate_limited_with_retry_after(fast):
    route = fast.get(ROUTE).respond(429, headers={"Retry-After": "30"}, json={"message": "Too Many Requests"})
    with pytest.raises(RateLimitedError) as info:
        get()
    assert info.value.code == RATE_LIMITED
    assert info.value.retry_after_s == 30
    assert info.value.status == 429
    assert info.value.source == "s2"
    assert info.value.retryable is True
    assert route.call_count == 1  # a 30 s wait does not fit a 2 s budget: reported at once


class FakeClock:
    """``time.monotonic`` and ``asyncio.sleep`` for scholar.sources.http: time moves only when the client sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(http, "time", SimpleNamespace(monotonic=fake.monotonic, perf_counter=time.perf_counter))
    monkeypatch.setattr(http, "asyncio", SimpleNamespace(sleep=fake.sleep, get_running_loop=asyncio.get_running_loop))
    return fake


def test_repeated_429s_stop_when_the_budget_runs_out(env, fast, clock):
    env(SCHOLAR_RETRY_BUDGET_S="0.6")
    route = fast.get(ROUTE).respond(429)  # no Retry-After: backoff 0.25 s, then 0.5 s (past the 0.6 s budget)
    with pytest.raises(RateLimitedError) as info:
        get()
    assert clock.slept == [0.25]  # one backoff fitted; the second would end past the budget, so none was taken
    assert route.call_count == 2
    assert info.value.retry_after_s is None


def test_a_503_then_200_succeeds(fast):
    route = fast.get(ROUTE)
    route.side_effect = [httpx.Response(503, headers={"Retry-After": "0"}), httpx.Response(200, json=[1])]
    assert get() == [1]
    assert route.call_count == 2


def test_a_503_without_retry_after_is_retried_after_a_short_backoff(fast):
    route = fast.get(ROUTE)
    route.side_effect = [httpx.Response(503), httpx.Response(200, json={})]
    assert get() == {}
    assert route.call_count == 2


def test_a_503_beyond_the_budget_is_an_upstream_error_with_the_status(fast):
    fast.get(ROUTE).respond(503, headers={"Retry-After": "30"}, text="Service Unavailable")
    with pytest.raises(UpstreamError) as info:
        get()
    assert info.value.code == UPSTREAM_ERROR
    assert info.value.status == 503
    assert info.value.source == "s2"


def test_a_timeout_is_an_upstream_timeout_error(env, fast):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    fast.get(ROUTE).mock(side_effect=httpx.ReadTimeout)
    with pytest.raises(UpstreamTimeoutError) as info:
        get()
    assert info.value.code == TIMEOUT
    assert info.value.source == "s2"


def test_a_timeout_is_retried_within_the_budget(env, fast):
    env(SCHOLAR_RETRY_BUDGET_S="1")
    route = fast.get(ROUTE)
    route.side_effect = [httpx.ReadTimeout("slow"), httpx.Response(200, json={"ok": True})]
    assert get() == {"ok": True}
    assert route.call_count == 2


@pytest.mark.parametrize(
    "exc",
    [httpx.ConnectTimeout, httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout],
    ids=lambda e: e.__name__,
)
def test_every_httpx_timeout_maps_to_upstream_timeout_error(env, fast, exc):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    fast.get(ROUTE).mock(side_effect=exc)
    with pytest.raises(UpstreamTimeoutError):
        get()


@pytest.mark.parametrize(
    "exc",
    [
        httpx.ConnectError,
        httpx.ReadError,
        httpx.WriteError,
        httpx.CloseError,
        httpx.RemoteProtocolError,
        httpx.LocalProtocolError,
        httpx.ProxyError,
        httpx.UnsupportedProtocol,
        httpx.DecodingError,
        httpx.TooManyRedirects,
    ],
    ids=lambda e: e.__name__,
)
def test_every_other_httpx_request_error_maps_to_upstream_error(env, fast, exc):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    fast.get(ROUTE).mock(side_effect=exc)
    with pytest.raises(UpstreamError) as info:
        get()
    assert type(info.value) is UpstreamError
    assert isinstance(info.value.__cause__, exc)


def test_an_html_page_on_200_is_an_upstream_error(fast, fixture_file):
    html = fixture_file("upstream/openalex/work_by_doi_not_found_404.html")
    fast.get(ROUTE).respond(200, content=html, headers={"Content-Type": "text/html; charset=utf-8"})
    with pytest.raises(UpstreamError) as info:
        get()
    assert info.value.code == UPSTREAM_ERROR
    assert info.value.status == 200


def test_truncated_json_on_200_is_an_upstream_error(fast, fixture_file):
    body = fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json")
    fast.get(ROUTE).respond(200, content=body[: len(body) // 2], headers={"Content-Type": "application/json"})
    with pytest.raises(UpstreamError) as info:
        get()
    assert info.value.code == UPSTREAM_ERROR


def test_a_404_is_not_found(fast, fixture_file):
    body = fixture_file("upstream/semantic_scholar/paper_by_doi_not_found_404.json")
    route = fast.get(ROUTE).respond(404, content=body, headers={"Content-Type": "application/json"})
    with pytest.raises(NotFoundError) as info:
        get()
    assert info.value.code == NOT_FOUND
    assert info.value.status == 404
    assert route.call_count == 1


def test_a_400_is_an_upstream_error_and_not_retried(fast, fixture_file):
    body = fixture_file("upstream/semantic_scholar/paper_invalid_fields_400.json")
    route = fast.get(ROUTE).respond(400, content=body, headers={"Content-Type": "application/json"})
    with pytest.raises(UpstreamError) as info:
        get({"fields": "unknown"})
    assert info.value.status == 400
    assert info.value.retryable is False
    assert route.call_count == 1


def test_post_json_sends_the_body_and_decodes_the_answer(fast):
    route = fast.post("/s2/graph/v1/paper/batch").respond(200, json=[None])
    out = aio.run(http.post_json("s2", "/graph/v1/paper/batch", {"ids": ["x"]}, what="papers"))
    assert out == [None]
    assert json.loads(route.calls.last.request.content) == {"ids": ["x"]}


@pytest.mark.parametrize(
    ("status", "headers", "error"),
    [
        (429, {"Retry-After": "30"}, RateLimitedError),
        (503, {"Retry-After": "30"}, UpstreamError),
        (400, {}, UpstreamError),
        (404, {}, NotFoundError),
        (200, {"Content-Type": "text/html"}, UpstreamError),
    ],
)
def test_error_messages_never_contain_the_query_string(fast, status, headers, error):
    fast.get(ROUTE).respond(status, headers=headers, text="<html>oops</html>")
    with pytest.raises(error) as info:
        get({"api_key": SECRET, "fields": "title"})
    text = str(info.value.to_envelope())
    assert SECRET not in text
    assert "api_key" not in text


def test_a_timeout_message_never_contains_the_query_string(env, fast):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    fast.get(ROUTE).mock(side_effect=httpx.ReadTimeout)
    with pytest.raises(UpstreamTimeoutError) as info:
        get({"api_key": SECRET})
    assert SECRET not in str(info.value.to_envelope())


def test_an_upstream_body_that_echoes_our_key_is_scrubbed_from_the_message(env, fast):
    # Synthetic body: some upstreams echo the request URL in their error text (DESIGN §12: scrub keys).
    env(SCHOLAR_OPENALEX_API_KEY=SECRET, SCHOLAR_RETRY_BUDGET_S="0")
    fast.get("/openalex/works/W1").respond(400, text=f"Invalid query: /works/W1?api_key={SECRET}")
    with pytest.raises(UpstreamError) as info:
        aio.run(openalex.get_work("W1"))
    assert SECRET not in str(info.value.to_envelope())


def test_retry_after_accepts_seconds_and_http_dates():
    assert http.retry_after_seconds(httpx.Response(429, headers={"Retry-After": "7"})) == 7
    assert http.retry_after_seconds(httpx.Response(429)) is None
    future = email.utils.formatdate(time.time() + 60, usegmt=True)
    wait = http.retry_after_seconds(httpx.Response(429, headers={"Retry-After": future}))
    assert 55 <= wait <= 61
    past = email.utils.formatdate(time.time() - 60, usegmt=True)
    assert http.retry_after_seconds(httpx.Response(429, headers={"Retry-After": past})) == 0


async def _current_client():
    async with http.client_for("s2") as client:
        return client


def test_the_process_loop_keeps_one_client_per_source():
    http.set_transport_factory(None)
    first = aio.run(_current_client())
    assert aio.run(_current_client()) is first
    assert not first.is_closed


def test_a_callers_own_loop_gets_a_one_off_client_closed_on_exit():
    # asyncio.run per call (scripts, tests) makes a loop per call, and CPython reuses a collected loop's id():
    # a client kept for such a loop could be handed to the next one (encode/httpx#2473).
    clients = [asyncio.run(_current_client()) for _ in range(6)]
    assert len({id(c) for c in clients}) == len(clients)
    assert all(c.is_closed for c in clients)
