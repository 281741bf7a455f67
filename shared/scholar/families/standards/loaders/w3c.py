"""W3C API specification + its latest version → one record per specification (short name).

Maturity maps to status: Recommendation and Notes are ``current``; drafts on the track (WD, CR, PR)
are ``draft``; Superseded Recommendations are ``superseded``; Retired, Rescinded and Obsolete are ``withdrawn``.
"""

from __future__ import annotations

import re
from typing import Any

from scholar.families.standards.records import StandardRecord, Status

_TAG = re.compile(r"<[^>]+>")
_ACRONYM_VERSION = re.compile(r"\((?P<acr>[A-Z][A-Za-z0-9-]+)\)\s*(?P<ver>\d+(?:\.\d+)*)")
_WITHDRAWN = ("retired", "rescinded", "obsolete", "discontinued")


def status_of(maturity: str | None) -> Status:
    """Map a W3C maturity level to a catalogue status."""
    label = (maturity or "").lower()
    if "superseded" in label:
        return "superseded"
    if any(word in label for word in _WITHDRAWN):
        return "withdrawn"
    if (
        not label
        or label in ("recommendation", "statement", "registry")
        or (label.endswith("note") and "draft" not in label)
    ):
        return "current"
    return "draft"  # Working Draft, Candidate Recommendation, Proposed Recommendation, Draft Note/Registry


def _link(doc: dict[str, Any], name: str) -> str | None:
    link = (doc.get("_links") or {}).get(name)
    return link.get("href") if isinstance(link, dict) else None


def load_specification(spec: dict[str, Any], latest: dict[str, Any] | None) -> StandardRecord:
    """Build the record of one specification from its API document and its latest version document."""
    shortname = spec["shortname"]
    latest = latest or {}
    maturity = latest.get("status") or ((spec.get("_links") or {}).get("latest-version") or {}).get("title")
    title = latest.get("title") or spec.get("title") or shortname
    aliases = [f"W3C {shortname}"]
    acronym = _ACRONYM_VERSION.search(title)
    if acronym:
        aliases.append(f"{acronym['acr']} {acronym['ver']}")
    description = spec.get("description")
    abstract = " ".join(_TAG.sub(" ", description).split()) if description else None
    shortlink = spec.get("shortlink") or latest.get("shortlink")
    return StandardRecord(
        id=shortname,
        identifier=f"W3C {shortname}",
        title=title,
        body="W3C",
        bodies=["W3C"],
        status=status_of(maturity),
        upstream_status=maturity,
        doc_type=maturity,
        version=latest.get("date"),
        published=latest.get("date"),
        abstract=abstract,
        urls=[u for u in (shortlink, latest.get("uri"), spec.get("editor-draft")) if u],
        full_text_url=latest.get("uri") or shortlink,
        aliases=aliases,
        source="w3c",
    )


def latest_version_href(spec: dict[str, Any]) -> str | None:
    """The API URL of a specification's latest version (changes when W3C publishes a new one)."""
    return _link(spec, "latest-version")
