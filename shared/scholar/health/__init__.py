"""Usage records and the doctor (DESIGN §2 ``health/``): written by every call, read by source_health.

A library, not a family (no spec.py): every family function records through it (the recorder is
hooked into ``scholar.http`` and ``scholar.runtime.family``), the research family's ``source_health``
reads it, and the probe function keeps it fed. ``scholar.health.probe`` is imported on its own
(it sends HTTP requests through ``scholar.http``, which imports the recorder from here).
"""

from scholar.health.doctor import Finding, diagnose
from scholar.health.history import Windows, close_hours, windows
from scholar.health.recorder import Call, annotate, note_answer, note_attempt, recording
from scholar.health.records import NO_SOURCE, SourceStats, UsageRecord, hash_principal
from scholar.health.report import SourceHealth, health_of, source_status
from scholar.health.summary import Summary

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
