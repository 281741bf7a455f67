"""Per-source CloudWatch metrics (Powertools EMF), one small blob per source and call.

Dimensions stay small: ``service`` and ``source`` only (two dozen sources); the error kinds are
separate metric names rather than a ``code`` dimension. ``Failed`` is 1 when the call saw the source
fail and 0 otherwise, so its Average is the source's error rate (the alarm and the dashboard use it). Published
only on a backend whose metrics CloudWatch reads (``Backend.metrics``: Lambda and the AWS stand-in, never one
machine's local backend, where the EMF lines would land on the user's stdout); Powertools is imported then only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scholar.core.backend import current as current_backend
from scholar.core.numerals import ascii_int
from scholar.services.health.records import NO_SOURCE, UsageRecord

if TYPE_CHECKING:
    from aws_lambda_powertools.metrics import EphemeralMetrics


def _blob() -> EphemeralMetrics | None:
    """A metrics blob of our namespace and service, or None where the backend publishes none."""
    if not current_backend().metrics:
        return None
    from aws_lambda_powertools.metrics import EphemeralMetrics  # noqa: PLC0415  # Powertools: where metrics are read

    from scholar.runtime.observability import NAMESPACE, SERVICE  # noqa: PLC0415  # with Powertools

    return EphemeralMetrics(namespace=NAMESPACE, service=SERVICE)


def publish(records: list[UsageRecord]) -> None:
    """Emit each record's per-source figures."""
    for record in records:
        for stats in record.sources:
            if stats.source == NO_SOURCE:
                continue
            blob = _blob()
            if blob is None:
                return
            blob.add_dimension(name="source", value=stats.source)
            blob.add_metric(name="SourceRequests", unit="Count", value=stats.requests)
            blob.add_metric(name="SourceFailures", unit="Count", value=stats.failures)
            blob.add_metric(name="SourceThrottles", unit="Count", value=stats.throttled)
            blob.add_metric(name="SourceServerErrors", unit="Count", value=_server_errors(stats.statuses))
            blob.add_metric(name="SourceTimeouts", unit="Count", value=stats.statuses.get("timeout", 0))
            blob.add_metric(name="SourceLatency", unit="Milliseconds", value=stats.latency_ms)
            blob.add_metric(name="Failed", unit="Count", value=0 if stats.succeeded else 1)
            blob.flush_metrics()


def count_write_failure() -> None:
    """One usage batch could not be written (alarmable; the call itself went on).

    Emitted at once in a blob of its own (dimension ``service``, as the alarm reads it): the usage writer
    thread reports it, and the handler's shared ``metrics`` is not safe to add to from another thread.
    """
    blob = _blob()
    if blob is None:
        return
    blob.add_metric(name="UsageWriteFailed", unit="Count", value=1)
    blob.flush_metrics()


def _server_errors(statuses: dict[str, int]) -> int:
    return sum(n for code, n in statuses.items() if (ascii_int(code) or 0) >= 500)
