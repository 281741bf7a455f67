"""``make doctor``: probe every configured upstream now and print the doctor's findings.

Runs against whatever upstreams the settings point at (the public APIs, a mirror, the fake upstream
through ``SCHOLAR_UPSTREAM_PROXY_BASE``). The records go to the backend's UsageTable (on one machine the data
folder's, so findings compare with the history of this machine's own calls); on the AWS stand-in without a
UsageTable an embedded stack is started for the run, which has no history: every source then says
``not_enough_history`` and the probe line alone shows what works now.
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


def run_doctor(out: TextIO = sys.stdout, *, template: Path | None = None) -> int:
    """Probe, judge and print; returns 1 when a probe failed or a source is failing, else 0."""
    if get_settings().resources.usage_table:
        return _doctor(out)
    from scholar.local.http_app import default_template  # noqa: PLC0415  # the stand-in's template
    from scholar.local.stack import LocalStack  # noqa: PLC0415  # moto: only without a backend of our own

    with LocalStack(template=template or default_template()):
        return _doctor(out)


def _doctor(out: TextIO) -> int:
    results = aio.run(run_probe(force=True))
    healths = {h.source: h for h in aio.run(health_of(configured_sources(), with_calls_only=False))}
    out.write(f"{'source':<14} {'probe':<24} {'status':<9} findings\n")
    unhealthy = 0
    for result in results:
        health = healths[result.source]
        probe_ok = result.outcome == "ok"
        unhealthy += 0 if probe_ok and health.status != "failing" else 1
        out.write(f"{result.source:<14} {_probe_text(result):<24} {health.status:<9} {_findings_text(health)}\n")
    out.write(f"{len(results)} sources probed, {unhealthy} need attention\n")
    return 1 if unhealthy else 0


def _probe_text(result: ProbeResult) -> str:
    status = f" HTTP {result.status}" if result.status is not None else ""
    return f"{result.outcome}{status} {result.latency_ms} ms"


def _findings_text(health: SourceHealth) -> str:
    def text(kind: str, message: str, calls: object) -> str:
        return f"not enough history ({calls} calls)" if kind == "not_enough_history" else f"{kind}: {message}"

    return "; ".join(text(f.kind, f.message, f.evidence.get("history_calls")) for f in health.findings) or "-"
