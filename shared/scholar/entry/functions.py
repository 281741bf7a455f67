"""The functions that run tools and steps: the eight families, the PDF pipeline, the standards sync, the probe.

``FUNCTIONS`` maps a function's name (its folder under functions/, its name after the stack's prefix) to the call
it makes: a family's dispatch (``pipeline`` runs the pdf family's actions, the PDF pipeline's steps), the standards
sync, the health probe. Two ways in, one call:

- ``run(name, event)``: the call alone, as the local backend makes it — no Lambda context, no Powertools logging,
  metrics or tracing, nothing printed;
- ``lambda_handler(name)`` (and the module's attribute of that name, which functions/<name>/app.py re-exports): the
  call as Lambda runs it, inside Powertools' logger (the request's correlation id), metrics (cold start, one
  ``Invocation`` per tool call) and tracer, in the house's decorator order.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import scholar.services.health.recorder  # noqa: F401  # registers usage recording with scholar.core.usage_hooks
from scholar.families import FAMILIES
from scholar.runtime.family import dispatch

__all__ = ["FUNCTIONS", "lambda_handler", "run"]

# (event, Lambda context or None) → the function's answer.
Call = Callable[[dict[str, Any], Any], Any]


def _family(family: str, event: dict[str, Any], context: Any) -> Any:
    return dispatch(family, event)


def _standards_sync(event: dict[str, Any], context: Any) -> Any:
    from scholar.families.standards.jobs import handle_sync_event  # noqa: PLC0415  # the sync's loaders: this one only

    remaining = context.get_remaining_time_in_millis() / 1000 if context is not None else None
    return handle_sync_event(event, remaining)


def _probe(event: dict[str, Any], context: Any) -> Any:
    from scholar.services.health.probe import handle_probe_event  # noqa: PLC0415  # the probe function's alone

    return handle_probe_event(event)


FUNCTIONS: dict[str, Call] = {
    **{family: partial(_family, family) for family in FAMILIES},
    "pipeline": partial(_family, "pdf"),
    "standards_sync": _standards_sync,
    "probe": _probe,
}
# The event field a function's log lines are correlated by (Powertools' correlation id).
_CORRELATION = {"pipeline": "task_id", "standards_sync": None, "probe": None}
# The functions that dispatch to a family: each counts its invocations (the Invocation metric).
_DISPATCHES = frozenset({*FAMILIES, "pipeline"})


def run(name: str, event: dict[str, Any]) -> Any:
    """Run function ``name`` on ``event`` in this process, with no Lambda wrapping (the local backend's dispatch).

    Raises:
        KeyError: no function of that name.
    """
    return FUNCTIONS[name](event, None)


def lambda_handler(name: str) -> Callable[[dict[str, Any], Any], Any]:
    """Function ``name`` as a Lambda handler: logger, metrics and tracer around the same call as ``run``."""
    from scholar.runtime.observability import logger, metrics, tracer  # noqa: PLC0415  # Powertools: Lambda only

    call = FUNCTIONS[name]
    counted = name in _DISPATCHES

    def handler(event: dict[str, Any], context: Any) -> Any:
        if counted:
            metrics.add_metric(name="Invocation", unit="Count", value=1)
        return call(event, context)

    handler.__name__ = handler.__qualname__ = f"{name}_handler"
    traced = tracer.capture_lambda_handler(handler, capture_response=False)
    measured = metrics.log_metrics(traced, capture_cold_start_metric=True, raise_on_empty_metrics=False)
    return logger.inject_lambda_context(measured, correlation_id_path=_CORRELATION.get(name, "request_id"),
                                        clear_state=True)


def __getattr__(name: str) -> Any:
    """``scholar.entry.functions.papers``: the Lambda handler of that function (what functions/papers/app.py is)."""
    if name in FUNCTIONS:
        handler = lambda_handler(name)
        globals()[name] = handler  # built once per process
        return handler
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
