"""``scholar doctor``: each source judged against its own history; ``--network`` probes the links real use has not
exercised in the last hour (seed 003; ``make doctor`` passes it).

Without ``--network`` nothing is sent anywhere: the findings come from the usage records alone. Runs against
whatever upstreams the settings point at (the public APIs, a mirror, the fake upstream through
``SCHOLAR_UPSTREAM_PROXY_BASE``). The records go to the backend's UsageTable (on one machine the data folder's, so
findings compare with the history of this machine's own calls); on the AWS stand-in without a UsageTable an embedded
stack is started for the run, which has no history: every source then says ``not_enough_history`` and the probe line
alone shows what works now.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from scholar.core import aio
from scholar.core.config import get_settings
from scholar.services.health.probe import ProbeResult, configured_sources, run_probe
from scholar.services.health.report import SourceHealth, health_of

__all__ = ["run_doctor"]


def run_doctor(out: TextIO = sys.stdout, *, network: bool = False, template: Path | None = None) -> int:
    """Judge (and with ``network``, probe) and print; returns 1 when a probe failed or a source is failing, else 0."""
    if get_settings().resources.usage_table:
        return _doctor(out, network)
    from scholar.local.http_app import default_template  # noqa: PLC0415  # the stand-in's template
    from scholar.local.stack import LocalStack  # noqa: PLC0415  # moto: only without a backend of our own

    with LocalStack(template=template or default_template()):
        return _doctor(out, network)


def _doctor(out: TextIO, network: bool) -> int:
    sources = configured_sources()
    probes = {r.source: r for r in aio.run(run_probe())} if network else {}
    healths = {h.source: h for h in aio.run(health_of(sources, with_calls_only=False))}
    out.write(f"{'source':<14} {'probe':<24} {'status':<9} findings\n")
    unhealthy = 0
    for source in sources:
        health, result = healths[source], probes.get(source)
        probe_ok = result is None or result.outcome == "ok"
        unhealthy += 0 if probe_ok and health.status != "failing" else 1
        out.write(f"{source:<14} {_probe_text(result):<24} {health.status:<9} {_findings_text(health)}\n")
    probed = sum(1 for r in probes.values() if not r.skipped)
    said = f"{probed} sources probed" if network else "0 sources probed (--network probes the links unused lately)"
    out.write(f"{len(sources)} sources judged, {said}, {unhealthy} need attention\n")
    return 1 if unhealthy else 0


def _probe_text(result: ProbeResult | None) -> str:
    if result is None:
        return "not probed"
    if result.skipped:
        return "used lately"
    status = f" HTTP {result.status}" if result.status is not None else ""
    return f"{result.outcome}{status} {result.latency_ms} ms"


def _findings_text(health: SourceHealth) -> str:
    def text(kind: str, message: str, calls: object) -> str:
        return f"not enough history ({calls} calls)" if kind == "not_enough_history" else f"{kind}: {message}"

    return "; ".join(text(f.kind, f.message, f.evidence.get("history_calls")) for f in health.findings) or "-"
