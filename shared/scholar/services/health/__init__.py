"""Usage records and the doctor (DESIGN §2 ``health/``): written by every call, read by source_health.

A library, not a family (no spec.py): every family function records through it (the recorder
registers itself with ``scholar.core.usage_hooks``, which ``scholar.sources.http`` and ``scholar.runtime.family`` call;
each function's app.py imports it), the research family's ``source_health`` reads it, and the probe
function keeps it fed. ``scholar.services.health.probe`` is imported on its own.
"""

import importlib
from typing import Any

# Imported when first asked for (PEP 562): every family function imports the recorder, which pulls in this
# package; the doctor, the history and the report (pydantic models) are only for source_health and the probe.
_WHERE = {
    "Finding": "doctor", "diagnose": "doctor",
    "Windows": "history", "close_hours": "history", "windows": "history",
    "Call": "recorder", "annotate": "recorder", "note_answer": "recorder", "note_attempt": "recorder",
    "recording": "recorder",
    "NO_SOURCE": "records", "SourceStats": "records", "UsageRecord": "records", "hash_principal": "records",
    "SourceHealth": "report", "health_of": "report", "source_status": "report",
    "Summary": "summary",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)


__all__ = [
    "NO_SOURCE",
    "Call",
    "Finding",
    "SourceHealth",
    "SourceStats",
    "Summary",
    "UsageRecord",
    "Windows",
    "annotate",
    "close_hours",
    "diagnose",
    "hash_principal",
    "health_of",
    "note_answer",
    "note_attempt",
    "recording",
    "source_status",
    "windows",
]
