"""The hourly probe: one cheap, known-good request to each configured source real use left idle.

Each probe is recorded like a tool call (tool ``probe``, family ``probe``), so a source nobody asked
this hour still has a recent window, and all of them go out in one batch at the end. The requests
are public, tiny and stable (a famous DOI, a well-known arXiv id, a small index file), and sent
with no retry budget: a probe reports what the source does now, it does not insist.
After probing, the finished hours of every source are rolled up (scholar.services.health.history).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scholar.core import aio
from scholar.core.config import Settings, get_settings
from scholar.core.errors import ScholarError
from scholar.services.health.doctor import RECENT_S
from scholar.services.health.history import close_hours, last_call_at
from scholar.services.health.recorder import Call, flush
from scholar.services.health.records import NO_SOURCE, PROBE_TOOL
from scholar.sources import http
from scholar.sources.registry import SOURCES, base_url
from scholar.store.usage import UsageStore, UsageWriteError

logger = logging.getLogger(__name__)

PROBE_PRINCIPAL = "scheduler:probe"
_DOI = "10.1073/pnas.1414271111"  # a stable, well-indexed paper every scholarly source knows


@dataclass(frozen=True)
class Probe:
    """One known-good request."""

    source: str
    method: str
    path: str
    params: tuple[tuple[str, str], ...] = ()
    needs: str | None = None  # a secret without which the source is not configured

    def configured(self, settings: Settings) -> bool:
        try:
            base_url(self.source, settings)
        except KeyError:  # no public default and no URL set (docling)
            return False
        return self.needs is None or settings.secrets.has(self.needs)


PROBES: dict[str, Probe] = {
    p.source: p
    for p in (
        Probe("s2", "GET", f"/graph/v1/paper/DOI:{_DOI}", (("fields", "title"),)),
        Probe("openalex", "GET", "/works/W2741809807", (("select", "id"),)),
        Probe("crossref", "GET", "/works/10.1371/journal.pone.0033693"),
        Probe("unpaywall", "GET", f"/v2/{_DOI}"),  # email added at send time (contact setting)
        Probe(
            "europepmc",
            "GET",
            "/europepmc/webservices/rest/search",
            (("query", f"DOI:{_DOI}"), ("format", "json"), ("pageSize", "1")),
        ),
        Probe("arxiv_api", "GET", "/api/query", (("id_list", "1706.03762"), ("max_results", "1"))),
        Probe("arxiv", "HEAD", "/abs/1706.03762"),
        Probe("inspire", "GET", "/api/literature/1842768", (("fields", "titles"),)),
        Probe("openlibrary", "GET", "/works/OL15832982W.json"),
        Probe("covers", "HEAD", "/b/id/6796986-S.jpg"),
        Probe("google_books", "GET", "/books/v1/volumes", (("q", "isbn:9780099560432"), ("maxResults", "1"))),
        Probe("rfc_editor", "HEAD", "/rfc-index.xml"),
        Probe("nist", "GET", "/CSRC/media/feeds/metanorma/pubs-export.meta"),
        Probe("w3c", "GET", "/specifications/2dcontext"),
        Probe("relaton", "HEAD", "/relaton/relaton-data-iso/main/index-v1.zip"),
        Probe("epo_ops", "HEAD", "/3.2/rest-services/", needs="epo_consumer_key"),
        Probe("docling", "GET", "/health"),
    )
}


class ProbeResult(BaseModel):
    """What one probe saw."""

    source: str
    outcome: str  # "ok" or an error code
    status: int | None = None
    latency_ms: int
    skipped: str | None = None  # why no request was sent


def configured_sources(settings: Settings | None = None) -> list[str]:
    """Sources with a probe that this deployment can reach."""
    settings = settings or get_settings()
    return [name for name, probe in PROBES.items() if probe.configured(settings)]


async def _send(probe: Probe) -> int:
    params = dict(probe.params)
    if probe.source == "unpaywall":
        params["email"] = get_settings().contact_email or "scholar-mcp-probe@example.org"  # Unpaywall requires one
    response = await http.request(probe.source, probe.method, probe.path, params=params, budget_s=0)
    return response.status_code


async def _probe(probe: Probe) -> tuple[Call, ProbeResult]:
    call = Call(tool=PROBE_TOOL, family=PROBE_TOOL, principal=PROBE_PRINCIPAL)
    began = time.perf_counter()
    status: int | None = None
    try:
        status = await call.bind(_send(probe))
        outcome = "ok" if status < 400 else ("not_found" if status == 404 else "upstream_error")
        call.ended({"ok": True, "result": {}} if outcome == "ok" else {"ok": False, "error": {"code": outcome}})
    except ScholarError as err:
        outcome, status = err.code, err.status
        call.ended({"ok": False, "error": {"code": err.code}})
    latency = int((time.perf_counter() - began) * 1000)
    return call, ProbeResult(source=probe.source, outcome=outcome, status=status, latency_ms=latency)


async def run_probe(
    *, store: UsageStore | None = None, now: float | None = None, sources: list[str] | None = None, force: bool = False
) -> list[ProbeResult]:
    """Probe every configured source not asked by a real call in the last hour; record and roll up.

    Args:
        store: the usage store (default: the configured table).
        now: the current time (tests).
        sources: limit the probe to these sources (default: every configured one).
        force: probe even sources real use exercised in the last hour (``make doctor``).

    Returns:
        One result per configured source, in registry order (skipped ones say why).
    """
    store = store or UsageStore()
    now = time.time() if now is None else now
    chosen = [s for s in configured_sources() if sources is None or s in sources]
    due, results = [], {}
    for source in chosen:
        last_call = None if force else await asyncio.to_thread(
            last_call_at, source, store, now - RECENT_S, now, real_only=True)
        if last_call:
            results[source] = ProbeResult(source=source, outcome="ok", latency_ms=0, skipped="used in the last hour")
        else:
            due.append(PROBES[source])
    probed = await asyncio.gather(*(_probe(probe) for probe in due))
    await asyncio.to_thread(flush, [record for call, _ in probed for record in call.record()])
    results.update({result.source: result for _, result in probed})
    await asyncio.to_thread(_close_all, store, now)
    return [results[source] for source in chosen]


def _close_all(store: UsageStore, now: float) -> None:
    for source in (*SOURCES, NO_SOURCE):
        try:
            close_hours(source, store, now)
        except UsageWriteError:
            logger.exception("rollups of %s were not written", source)


class ProbeEvent(BaseModel):
    """The scheduler's input (template.yaml ProbeFunction) or a manual run's."""

    model_config = ConfigDict(extra="ignore")
    action: Literal["probe"] = "probe"
    scheduled_time: str | None = None
    sources: list[str] | None = Field(default=None, max_length=len(PROBES))
    force: bool = False


class ProbeRun(BaseModel):
    """What one run of the probe function did."""

    probed: int
    skipped: int
    failed: list[str] = Field(description="sources whose probe did not answer ok")
    results: list[ProbeResult]


def handle_probe_event(event: dict[str, Any]) -> dict[str, Any]:
    """Run the probe for one scheduler event (the ProbeFunction's work); returns the run as a dict."""
    request = ProbeEvent.model_validate(event or {})
    results = aio.run(run_probe(sources=request.sources, force=request.force))
    run = ProbeRun(
        probed=sum(1 for r in results if r.skipped is None),
        skipped=sum(1 for r in results if r.skipped is not None),
        failed=[r.source for r in results if r.skipped is None and r.outcome != "ok"],
        results=results,
    )
    logger.info("probe: %d sent, %d skipped, failing: %s", run.probed, run.skipped, ", ".join(run.failed) or "none")
    return run.model_dump(mode="json", exclude_none=True)
