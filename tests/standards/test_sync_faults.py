"""The standards sync in the fault matrix (issue #22 item 4): each body's upstream failing in each way.

``search_standards`` on a cold catalogue queues the sync; with one body's upstream answering 429, 500, HTML on
200, a cut body or not at all, the queued task must end typed: completed with an answer that says it is partial
and names the body (never a partial catalogue served as complete), or failed with a retryable code. Once the
fault clears, the retry the next call starts brings the body back and the answer is complete again. A body
that fails after a good sync keeps its last good data and the answer says it is stale.

Upstream answers are the recorded ones (tests/standards/upstream_routes.py); the faults are SYNTHETIC.

It lives beside the standards tests, not in tests/reliability: its ``aws`` fixture starts moto's in-process mock,
which resets every moto backend of the process, and tests/reliability keeps a package-scoped local stack (moto)
running across its modules; run after one of them on a worker, it wiped that stack's functions and the modules
after it failed with "Function not found" (seen with xdist's largest-first order).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest

from scholar.core.catalogue import CallContext, QueuedResult
from scholar.core.errors import RATE_LIMITED, TIMEOUT, UNAVAILABLE, UPSTREAM_ERROR
from scholar.families.standards import service
from scholar.families.standards.handlers import HANDLERS
from scholar.families.standards.jobs import handle_sync_event
from scholar.families.standards.spec import SearchInput
from scholar.store.tasks import TaskStore

CTX = CallContext(principal="matrix-standards", request_id="req-1")
TYPED = (RATE_LIMITED, UPSTREAM_ERROR, TIMEOUT, UNAVAILABLE)
HTML = b"<!DOCTYPE html><html><body><h1>We'll be back shortly</h1></body></html>"

# The routes each body's sync reads (tests/standards/upstream_routes.py), and a body of the right kind to cut.
ROUTES = {
    "IETF": ("rfc_index",),
    "W3C": ("w3c_list",),
    "NIST": ("nist_meta", "nist_zip"),
    "ISO": ("github_head_ISO", "github_zipball_ISO", "relaton_index_ISO"),
}
CUT = {
    "IETF": (b'<?xml version="1.0" encoding="UTF-8"?>\n<rfc-index xmlns="https://www.rfc-editor.org/rfc-index">'
             b"<rfc-entry><doc-id>RFC0001</doc-id><title>Host Sof", "text/xml"),
    "W3C": (b'{"page": 1, "limit": 100, "pages": 2, "total": 2, "_links": {"specifications": [{"href": "https://api.w',
            "application/json"),
    "NIST": (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "application/zip"),
    "ISO": (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "application/zip"),
}


def _fault(body: str, fault: str) -> httpx.Response | Exception:
    if fault == "429":
        return httpx.Response(429, headers={"Retry-After": "1"}, text="Too Many Requests")
    if fault == "500":
        return httpx.Response(500, text="Internal Server Error")
    if fault == "timeout":
        return httpx.ReadTimeout("timed out")
    if fault == "html_200":
        return httpx.Response(200, content=HTML, headers={"content-type": "text/html; charset=utf-8"})
    data, kind = CUT[body]
    return httpx.Response(200, content=data, headers={"content-type": kind})


FAULTS = ("429", "500", "timeout", "html_200", "truncated")
CELLS = [(body, fault) for body in ROUTES for fault in FAULTS]


def failure_stated(warning: str | None) -> bool:
    """The answer's warning states a failed fetch (a typed code). A clean sync of the recordings warns only of
    the two W3C documents that were never recorded (tests/standards/test_sync.py), with no code."""
    return any(f"{code}: " in (warning or "") for code in TYPED)


def search() -> object:
    return asyncio.run(HANDLERS["search_standards"](SearchInput(query="security", limit=5), CTX))


def inject(routes, body: str, fault: str) -> None:
    for name in ROUTES[body]:
        routes.overrides[name] = _fault(body, fault)


def recovery(routes, body: str) -> Callable[[], None]:
    """Run the sync the last answer started for ``body`` (the on-demand retry), then read the new catalogue."""
    payloads = [p for p in routes.started if body in (p.get("bodies") or [])]
    assert payloads, f"no sync of {body} was started: {routes.started}"
    handle_sync_event(payloads[-1])
    service.holder().reset()


@pytest.mark.parametrize(("body", "fault"), CELLS, ids=[f"{b}-{f}" for b, f in CELLS])
def test_a_cold_sync_with_a_failing_body_ends_typed_then_the_catalogue_recovers(standards_aws, body, fault):
    inject(standards_aws, body, fault)

    queued = search()

    assert isinstance(queued, QueuedResult)
    summary = handle_sync_event(standards_aws.started.pop(0))
    run = next(r for r in summary["runs"] if r["body"] == body)
    assert run["outcome"] == "failed", run
    assert run["errors"] and run["errors"][0].split(":", 1)[0] in TYPED, run["errors"]
    task = TaskStore().get(queued.task_id, CTX.principal)
    if task.status == "completed":  # the other bodies answered: a catalogue, said to be partial
        assert task.result["partial"] is True and body in task.result["failed_bodies"], task.result
        assert body in task.result["warning"]
    else:
        assert task.status == "failed" and task.error["code"] in TYPED and task.error["retryable"], task

    standards_aws.overrides.clear()
    service.holder().reset()
    still = search()  # the body has no data yet: partial again, and this call starts the body's sync
    assert still.partial is True and body in still.failed_bodies
    recovery(standards_aws, body)

    after = search()
    assert (after.partial, after.failed_bodies) == (False, [])
    assert not failure_stated(after.warning), after.warning
    assert service.holder().pointer.bodies[body].records > 0


@pytest.mark.parametrize("body", list(ROUTES))
@pytest.mark.parametrize("fault", ["429", "500", "truncated"])
def test_a_body_failing_after_a_good_sync_is_served_from_its_last_data_and_said_to_be_stale(standards_aws, body,
                                                                                            fault):
    handle_sync_event({})
    service.holder().get()
    kept = service.holder().pointer.bodies[body].records
    inject(standards_aws, body, fault)

    summary = handle_sync_event({})
    service.holder().reset()
    answer = search()

    assert next(r for r in summary["runs"] if r["body"] == body)["outcome"] == "failed"
    assert service.holder().pointer.bodies[body].records == kept
    assert f"{body}: the last sync failed, serving data from" in (answer.warning or ""), answer.warning
    assert failure_stated(answer.warning), answer.warning
    standards_aws.overrides.clear()
    handle_sync_event({"bodies": [body]})
    service.holder().reset()
    assert not failure_stated(search().warning)
