"""Patent publication numbers in every form users paste, as the docdb / epodoc forms EPO OPS expects.

``parse_patent_number`` is pure: ``EP1234567A1``, ``EP 1 234 567 A1``, ``EP.1234567.A1``, ``WO2024/123456``,
``WO 2024123456 A1``, ``US11,234,567B2``, ``US 2021/0123456 A1`` (US pre-grant), ``JP 2020-123456 A``,
``KR 10-2020-0012345 A``, ``CN112345678A`` … with or without a kind code. Each office's rule gives the docdb
number (``EP.2400812.A1``); without a kind code the epodoc form (``EP2400812``) is what OPS is asked for.
A form no office rule explains but that still looks like a publication number (an era-year JP number,
an unusual length) is marked ``ambiguous``: ``scholar.sources.epo_ops_numbers.standardise`` then asks the OPS
number service once and caches its answer. The constraint: never guess a docdb number silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from scholar.core.errors import InvalidArgumentError

FIELD = "patent_number"
EXAMPLES = (
    "EP1234567A1, EP 1 234 567 A1, EP.1234567.A1, WO2024/123456, WO 2024123456 A1, US11,234,567B2, "
    "US 2021/0123456 A1, JP 2020-123456 A, CN112345678A, KR 10-2020-0012345 A, DE102019123456A1"
)
# Offices (and regional offices) whose publications OPS holds; two letters outside this set are not a patent.
OFFICES = frozenset(
    [
        "EP", "WO", "US", "JP", "CN", "KR", "DE", "FR", "GB", "CA", "AU", "CH", "AT", "ES", "IT", "NL", "SE", "DK",
        "FI", "BE", "NO", "PL", "PT", "IE", "RU", "TW", "IN", "BR", "MX", "IL", "NZ", "SG", "ZA", "EA", "AP", "OA",
        "HR", "CZ", "SK", "HU", "RO", "BG", "GR", "TR", "SI", "LT", "LV", "EE", "LU", "IS", "MT", "CY", "UA", "BY",
        "KZ", "AR", "CL", "CO", "PE", "EC", "UY", "PH", "MY", "TH", "ID", "VN", "HK", "MA", "EG", "SA", "GC",
    ]
)

_KIND = r"(?P<kind>[A-Z]\d?)"
_SEP = r"[\s.,/\-]*"
_HEAD = re.compile(r"^(?:PATENT:\s*)?(?P<cc>[A-Z]{2})" + _SEP + r"(?P<body>.*?)$")
# The kind code: a letter (and a digit) after the number, with or without a separator.
_TAIL_KIND = re.compile(r"^(?P<body>.*?\d)" + _SEP + _KIND + r"$")
_SEPARATORS = re.compile(r"[\s.,/\-]")
_YEAR = r"(?:19|20)\d\d"


@dataclass(frozen=True)
class PatentNumber:
    """One publication number: office, docdb number, kind code (None when the caller gave none)."""

    country: str
    number: str
    kind: str | None = None
    # No office rule explains the form: the OPS number service decides (scholar.sources.epo_ops_numbers.standardise).
    ambiguous: bool = False
    # The number as written (separators kept), what the number service is given for an ambiguous form.
    original: str | None = None

    @property
    def docdb(self) -> str:
        """``EP.2400812.A1`` (``EP.2400812`` without a kind)."""
        return f"{self.country}.{self.number}" + (f".{self.kind}" if self.kind else "")

    @property
    def epodoc(self) -> str:
        """``EP2400812`` (epodoc carries no kind code)."""
        return f"{self.country}{self.number}"

    @property
    def compact(self) -> str:
        """``EP2400812A1``: the form every tool returns and accepts."""
        return f"{self.country}{self.number}{self.kind or ''}"

    def ops_reference(self) -> tuple[str, str]:
        """The (format, reference) OPS is asked for: docdb with a kind code, epodoc without."""
        return ("docdb", self.docdb) if self.kind else ("epodoc", self.epodoc)

    def with_kind(self, kind: str | None) -> PatentNumber:
        return replace(self, kind=kind)


def invalid(raw: str, why: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"patent_number {raw[:60]!r} is not a patent publication number: {why}",
        field=FIELD,
        hint=f"Give the office code, the number and optionally the kind code, e.g. {EXAMPLES}.",
    )


def parse_patent_number(raw: str) -> PatentNumber:
    """Parse any pasted form into a ``PatentNumber``.

    Raises:
        InvalidArgumentError: naming ``patent_number``, with examples of accepted forms.
    """
    text = raw.strip().upper()
    head = _HEAD.match(text)
    if not head or head.group("cc") not in OFFICES:
        raise invalid(raw, "it must start with a two-letter office code such as EP, WO, US, JP, CN or KR")
    country, body = head.group("cc"), head.group("body").strip()
    kind = None
    tail = _TAIL_KIND.match(body)
    if tail:
        body, kind = tail.group("body"), tail.group("kind")
    parsed = _by_office(country, body)
    if parsed is None:
        raise invalid(raw, f"{body or 'nothing'!r} is not a {country} publication number")
    number, ambiguous = parsed
    return PatentNumber(country, number, kind, ambiguous=ambiguous, original=f"{country}{body}" if ambiguous else None)


def _by_office(country: str, body: str) -> tuple[str, bool] | None:
    """The docdb number of ``body`` and whether the form is ambiguous; None when it is no number at all."""
    rule = _RULES.get(country)
    if rule is not None and (number := rule(body)) is not None:
        return number, False
    compact = _SEPARATORS.sub("", body)
    if rule is None and re.fullmatch(r"[A-Z]?\d{4,13}", compact):
        return compact, False  # an office without a rule of ours: its serial as written (HR P20251003)
    if re.fullmatch(r"[A-Z]{0,3}\d{4,13}", compact):
        return compact, True  # JP H10-123456, an unusual length: the number service decides
    return None


def _ep(body: str) -> str | None:
    digits = _SEPARATORS.sub("", body)
    return digits.zfill(7) if re.fullmatch(r"\d{4,7}", digits) else None


def _year_serial(year: str, separator: str, plain: str) -> Callable[[str], str | None]:
    """A rule for ``<year><separator><serial>`` numbers (the serial padded to 6 digits), or ``plain`` digits."""
    split = re.compile(rf"({year})\s*{separator}\s*(\d{{1,6}})")

    def rule(body: str) -> str | None:
        parts = split.fullmatch(body)
        if parts:
            return parts.group(1) + parts.group(2).zfill(6)
        digits = _SEPARATORS.sub("", body)
        return digits if re.fullmatch(plain, digits) else None

    return rule


# WO2024/123456 and WO 2024123456 (year + 6 digits, since 2004); WO 02/054790, WO02054790 (two-digit year).
_wo = _year_serial(r"\d{2}|" + _YEAR, "/", _YEAR + r"\d{6}|\d{8}")
# JP 2020-123456 A (year + 6 digits); granted JP 6123456 B2 (7 digits).
_jp = _year_serial(_YEAR, "-", _YEAR + r"\d{6}|\d{6,7}")


def _us(body: str) -> str | None:
    # Pre-grant US 2021/0123456: docdb drops the serial's leading zero (US2021123456); grants up to 8 digits.
    slash = re.fullmatch(r"(" + _YEAR + r")\s*/\s*0?(\d{6})", body)
    if slash:
        return slash.group(1) + slash.group(2)
    digits = _SEPARATORS.sub("", body)
    if re.fullmatch(_YEAR + r"0\d{6}", digits):
        return digits[:4] + digits[5:]
    if re.fullmatch(_YEAR + r"\d{6}", digits) or re.fullmatch(r"\d{4,8}", digits):
        return digits
    if re.fullmatch(r"(?:RE|PP|D|H|T)\d{4,6}", digits):
        return digits  # reissues, plant and design patents
    return None


def _kr(body: str) -> str | None:
    # KR 10-2020-0012345 → KR20200012345 (year + 7 digits); granted KR 10-1234567 B1 → KR101234567.
    dashed = re.fullmatch(r"10\s*-\s*(" + _YEAR + r")\s*-\s*(\d{7})", body)
    if dashed:
        return dashed.group(1) + dashed.group(2)
    digits = _SEPARATORS.sub("", body)
    return digits if re.fullmatch(_YEAR + r"\d{7}|10\d{7}|\d{6,7}", digits) else None


def _cn(body: str) -> str | None:
    digits = _SEPARATORS.sub("", body)
    return digits if re.fullmatch(r"\d{6,9}", digits) else None


def _de(body: str) -> str | None:
    # DE 10 2019 123 456 A1 → DE102019123456; older DE 19812345 A1.
    digits = _SEPARATORS.sub("", body)
    return digits if re.fullmatch(r"10" + _YEAR + r"\d{6}|\d{5,8}", digits) else None


def _plain(low: int, high: int) -> Callable[[str], str | None]:
    def rule(body: str) -> str | None:
        digits = _SEPARATORS.sub("", body)
        return digits if re.fullmatch(rf"\d{{{low},{high}}}", digits) else None

    return rule


_RULES = {
    "EP": _ep, "WO": _wo, "US": _us, "JP": _jp, "KR": _kr, "CN": _cn, "DE": _de,
    "GB": _plain(6, 7), "FR": _plain(6, 7), "CA": _plain(6, 7), "AU": _plain(6, 10), "CH": _plain(5, 6),
    "TW": _plain(6, 9), "RU": _plain(6, 10), "IN": _plain(6, 12), "BR": _plain(6, 14), "ES": _plain(6, 7),
}
