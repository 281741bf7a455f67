"""Personal names: splitting "Jan van der Berg" into given / particle / family / suffix, spotting organisations."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scholar.core.records import PersonName

PARTICLES = frozenset(
    [
        "van", "von", "der", "den", "de", "del", "della", "dei", "degli", "di", "da", "das", "dos", "du", "des", "la",
        "le", "lo", "ter", "ten", "zu", "zur", "y", "al", "el", "bin", "ibn", "ben", "af", "av",
    ]
)
SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_ORGANISATION = re.compile(
    r"\b(consortium|organi[sz]ation|group|collaboration|committee|institute|association|team|project|society|"
    r"council|agency|university|network|foundation|alliance|initiative|working party|taskforce|task force)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Name:
    given: str | None = None
    particle: str | None = None
    family: str | None = None
    suffix: str | None = None
    literal: str | None = None


def _split_particle(family: str) -> tuple[str | None, str]:
    tokens = family.split()
    count = 0
    while count < len(tokens) - 1 and tokens[count].lower() in PARTICLES:
        count += 1
    return (" ".join(tokens[:count]) or None), " ".join(tokens[count:])


def parse_name(text: str) -> Name:
    """Split a display name ("Given von Family Jr." or "Family, Given") into its parts."""
    text = " ".join(text.split())
    if not text:
        return Name(literal="")
    if _ORGANISATION.search(text):
        return Name(literal=text)
    if "," in text:
        family, _, given = (part.strip() for part in text.partition(","))
        particle, family = _split_particle(family)
        return Name(given=given or None, particle=particle, family=family)
    tokens = text.split()
    suffix = None
    if len(tokens) > 2 and tokens[-1].lower() in SUFFIXES:
        suffix = tokens.pop()
    if len(tokens) == 1:
        return Name(family=tokens[0], suffix=suffix)
    # BibTeX's rule: the first run of lower-case particles (not the last word) starts the "von" part,
    # and everything after it is the family name ("Charles de la Vallée Poussin").
    start = next((i for i in range(1, len(tokens) - 1) if tokens[i].lower() in PARTICLES), len(tokens) - 1)
    end = start
    while end < len(tokens) - 1 and tokens[end].lower() in PARTICLES:
        end += 1
    return Name(given=" ".join(tokens[:start]) or None, particle=" ".join(tokens[start:end]) or None,
                family=" ".join(tokens[end:]), suffix=suffix)


def from_person(person: PersonName) -> Name:
    """A structured (Crossref) name; a particle written into the family name is split off."""
    if person.literal and not person.family:
        return Name(literal=person.literal)
    particle, family = _split_particle(person.family or "")
    return Name(given=person.given, particle=particle, family=family or None, suffix=person.suffix)
