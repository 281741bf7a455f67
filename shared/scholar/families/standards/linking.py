"""Cross-record links the upstream files state only on one side (run once over a whole catalogue).

- an amendment / corrigendum names its base: the base lists it under ``amendments``;
- "A supersedes B" and "B superseded by A" are made symmetric when both records are catalogued;
- ETSI publishes versions of one deliverable without a status: all but the newest are ``superseded``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from scholar.families.standards.identifiers import work_form
from scholar.families.standards.records import StandardRecord

_VERSION = re.compile(r"V(\d+)\.(\d+)\.(\d+)")


def _add(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def _add_ref(items: list[str], record: StandardRecord) -> None:
    """Name ``record`` in ``items`` unless it is named there already (by id or by identifier)."""
    if record.id not in items and record.identifier not in items:
        items.append(record.id)


def link(records: Iterable[StandardRecord]) -> list[StandardRecord]:
    """Return the records with amendments, supersession and ETSI versions linked both ways."""
    out = list(records)
    by_identifier: dict[str, StandardRecord] = {}
    for record in out:
        by_identifier.setdefault(record.identifier, record)
        by_identifier.setdefault(record.id, record)
    for record in out:
        for base in record.amends:
            if base in by_identifier:
                _add(by_identifier[base].amendments, record.identifier)
        for older in record.supersedes:
            target = by_identifier.get(older)
            if target is not None and target.body == record.body:
                _add_ref(target.superseded_by, record)
        for newer in record.superseded_by:
            target = by_identifier.get(newer)
            if target is not None and target.body == record.body:
                _add_ref(target.supersedes, record)
    _etsi_versions(out)
    return out


def _etsi_versions(records: list[StandardRecord]) -> None:
    works: dict[str, list[tuple[tuple[int, ...], StandardRecord]]] = defaultdict(list)
    for record in records:
        if record.body != "ETSI":
            continue
        match = _VERSION.search(record.identifier)
        work = work_form(record)
        if match and work:
            works[work].append((tuple(int(g) for g in match.groups()), record))
    for versions in works.values():
        versions.sort(key=lambda item: item[0])
        newest = versions[-1][1]
        for _version, record in versions[:-1]:
            if record.status == "current":
                record.status = "superseded"
            _add_ref(record.superseded_by, newest)
            _add_ref(newest.supersedes, record)
