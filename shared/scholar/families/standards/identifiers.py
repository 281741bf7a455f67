"""Identifier normalisation: the lookup keys of a record and the keys a raw citation may mean.

A key is the identifier's letter and digit runs, lower-cased, leading zeros dropped, joined by "-":
``RFC0791`` → ``rfc-791``, ``NIST SP 800-53 Rev. 5`` and ``nist sp 800-53r5`` → ``nist-sp-800-53-r-5``.
Keys are compared whole, never as prefixes, so ``sp 800-5`` can never match ``800-53``.
Levels: 0 the record's own identifiers, 1 the same edition written another way (one publisher of a joint
standard, the version without its date), 2 the work without year or revision (``ISO 27001``).
"""

from __future__ import annotations

import re

from scholar.families.standards.records import StandardRecord

EXACT, EDITION, WORK = 0, 1, 2
# Squashed keys (all runs concatenated) let ``WCAG 2.1`` meet the short name ``WCAG21``; W3C only.
SQUASH_PREFIX = "~"

PUBLISHERS = frozenset(
    {"iso", "iec", "ieee", "ansi", "astm", "en", "cen", "cenelec", "itu", "etsi", "nist", "ietf", "w3c", "cispr"}
)
# Stage codes written after a slash (ISO/CD 9001): drafts of the same work.
_STAGES = r"(?:CD|DIS|FDIS|WD|AWI|NP|PWI|PRF|DAmd|CDAmd|FDAmd)"
# Words people insert after the body ("IEEE Std 754", "FIPS PUB 140"); the first word is never filler (STD 3).
_FILLER = {"std", "pub", "publication", "standard"}
_SUBSTITUTIONS = (
    (re.compile(r"[™®]"), ""),
    (re.compile(r"special\s+publication", re.I), "sp"),
    (re.compile(r"\bnistir\b", re.I), "nist ir"),
    (re.compile(r"\brev(?:ision)?\.?\s*(?=\d)", re.I), "r"),
    (re.compile(r"(?<=\d)\s+(?=\d)"), ""),  # "303 645" and "303645" are one ETSI number
)
_RUN = re.compile(r"[a-z]+|\d+")
_TRAILING_YEAR = re.compile(r"^(?P<work>.*?\d[\w.-]*?)(?::|-)(?:19|20)\d\d(?P<rest>\s+\w+)?$")
_ETSI_VERSION = re.compile(r"^(?P<work>ETSI\s+\w+\s+[\d ]+(?:-\d+)*)\s+(?P<ver>V\d+\.\d+\.\d+)(?:\s*\(\d{4}-\d\d\))?$")
# SP revisions are written "Rev. N"; a FIPS revision is the number after the hyphen (FIPS 140-3).
_NIST_REVISION = (re.compile(r"^(?P<work>NIST SP .+?)\s+Rev\.\s*\d+\w*$"), re.compile(r"^(?P<work>NIST FIPS \d+)-\d+$"))


def key(text: str) -> str:
    """The normalised lookup key of an identifier or a raw citation."""
    for pattern, repl in _SUBSTITUTIONS:
        text = pattern.sub(repl, text)
    runs = [r.lstrip("0") or "0" if r.isdigit() else r for r in _RUN.findall(text.lower())]
    return "-".join(r for i, r in enumerate(runs) if i == 0 or r not in _FILLER)


def squashed(text: str) -> str:
    """All runs of the key concatenated (``WCAG 2.1`` → ``~wcag21``)."""
    return SQUASH_PREFIX + key(text).replace("-", "")


def publisher_forms(identifier: str) -> list[str]:
    """The identifier written with each publisher of a joint standard alone (``ISO/IEC 27001`` → ``ISO 27001`` …)."""
    head, _, rest = identifier.partition(" ")
    parts = head.split("/")
    if len(parts) < 2 or not rest:
        return []
    publishers = [p for p in parts if p.lower() in PUBLISHERS]
    others = [p for p in parts if p.lower() not in PUBLISHERS]
    if len(publishers) < 2:
        return []
    suffix = "/".join(others)
    return [f"{p}{'/' + suffix if suffix else ''} {rest}" for p in publishers]


def work_form(record: StandardRecord) -> str | None:
    """The identifier of the work without edition year, revision or version (None when it has none)."""
    ident = record.identifier
    if record.amends or re.search(r"/(?:Amd|AMD|Cor|COR|ISH|Add)\b", ident):
        return None
    if record.body == "NIST":
        for pattern in _NIST_REVISION:
            match = pattern.match(ident)
            if match:
                return match["work"]
        return None
    if record.body == "ETSI":
        match = _ETSI_VERSION.match(ident)
        return match["work"].strip() if match else None
    undrafted = re.sub(rf"/{_STAGES}\b", "", ident)
    match = _TRAILING_YEAR.match(undrafted)
    if match:
        return match["work"]
    return undrafted if undrafted != ident else None


def edition_forms(record: StandardRecord) -> list[str]:
    """Other spellings of this very edition (ETSI version without its date)."""
    if record.body == "ETSI":
        match = _ETSI_VERSION.match(record.identifier)
        if match:
            return [f"{match['work'].strip()} {match['ver']}"]
    return []


def record_keys(record: StandardRecord) -> list[tuple[str, int]]:
    """Every (key, level) under which ``record`` can be found."""
    out: dict[str, int] = {}

    def add(text: str, level: int) -> None:
        k = key(text)
        if k and out.get(k, 99) > level:
            out[k] = level

    for text in (record.id, record.identifier, *record.aliases):
        add(text, EXACT)
        for form in publisher_forms(text):
            add(form, EDITION)
    for text in edition_forms(record):
        add(text, EDITION)
    work = work_form(record)
    if work:
        add(work, WORK)
        for form in publisher_forms(work):
            add(form, WORK)
    if record.body == "W3C":
        for text in (record.id, *record.aliases):
            out.setdefault(squashed(text), EXACT)
    return list(out.items())


_BODY_PREFIX = re.compile(r"^\s*(?:ietf|w3c)\s+", re.I)
_NIST_SERIES = re.compile(r"^\s*(?:sp|fips|ir|cswp)(?:\s*pub)?\s*\d", re.I)
_NIST_PREFIX = re.compile(r"^\s*nist\s+", re.I)
_BARE_NIST = re.compile(r"^\s*(?:800|500|1800|300)-\d+", re.I)
_ETSI_KIND = re.compile(r"^\s*(?:en|es|eg|ts|tr|gs|gr|sr|gts|gtr|etr|ets|tbr)\s*\d", re.I)


def query_keys(raw: str) -> list[str]:
    """The keys a raw citation may stand for, most literal first."""
    text = _BODY_PREFIX.sub("", raw.strip())
    variants = [text]
    unprefixed = _NIST_PREFIX.sub("", text)
    if _NIST_SERIES.match(unprefixed):
        variants.append(f"NIST {unprefixed}")
    if _BARE_NIST.match(unprefixed):
        variants.append(f"NIST SP {unprefixed}")
    if _ETSI_KIND.match(text):
        variants.append(f"ETSI {text}")
    keys = [key(v) for v in variants]
    keys.append(squashed(text))
    return [k for k in dict.fromkeys(keys) if k and k != SQUASH_PREFIX]


_BODY_HINTS = (
    (re.compile(r"^\s*(?:ietf\s+)?(?:rfc|bcp|std|fyi)\s*[-#]?\s*\d", re.I), "IETF"),
    (re.compile(r"^\s*(?:nist\b|sp\s*\d|fips\b|nistir\b|ir\s*\d|cswp\b|(?:800|500|1800)-\d)", re.I), "NIST"),
    (re.compile(r"^\s*w3c\b", re.I), "W3C"),
    (re.compile(r"^\s*(?:etsi\b|(?:en|es|eg|ts|tr|gs|gr|sr)\s*\d)", re.I), "ETSI"),
    (re.compile(r"^\s*(?:[a-z]+/)*iso\b", re.I), "ISO"),
    (re.compile(r"^\s*(?:[a-z]+/)*(?:iec|cispr)\b", re.I), "IEC"),
    (re.compile(r"^\s*(?:[a-z]+/)*(?:ieee|ansi/ieee)\b", re.I), "IEEE"),
)


def guess_bodies(raw: str) -> set[str]:
    """The bodies an identifier-shaped citation names (empty for free text)."""
    bodies = {body for pattern, body in _BODY_HINTS if pattern.search(raw)}
    head = raw.strip().split(" ", 1)[0].upper()
    bodies.update(p for p in head.split("/") if p in ("ISO", "IEC", "IEEE"))
    return bodies
