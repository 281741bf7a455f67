"""Turning a caller's query and filters into one arXiv ``search_query`` (the effectiveQuery).

The caller's query is parsed (field prefixes, quoted phrases, AND / OR / ANDNOT, parentheses),
normalised (bare words become ``all:`` terms, side-by-side terms get an explicit AND) and rendered
back; the ``category`` filter and the submitted-date window are folded in with AND.

The one non-obvious constraint: rendering must be a fixed point, so that replaying an effectiveQuery
as ``query`` reproduces the same request. A bare archive code (``cat:astro-ph``) expands to the
archive's subject classes plus its legacy codes, and that expansion itself contains the bare code
(the papers filed before the archive was split). So a bare archive code inside an OR-only group of
``cat:`` terms that already lists all of the archive's subject classes is read as that legacy code
alone and left unexpanded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from scholar.core.errors import InvalidArgumentError
from scholar.families.arxiv import reasons, taxonomy

OPERATORS = ("AND", "OR", "ANDNOT")
# Field prefixes of the arXiv API (lower case), plus the two date ranges (camel case, as arXiv spells them).
PREFIXES = ("ti", "au", "abs", "co", "jr", "cat", "rn", "id", "all")
RANGE_PREFIXES = ("submittedDate", "lastUpdatedDate")
_PREFIX_BY_LOWER = {p.lower(): p for p in (*PREFIXES, *RANGE_PREFIXES)}
_RANGE_RE = re.compile(r"^\[\s*(\d{8,14})\s+TO\s+(\d{8,14})\s*\]$")
_NEEDS_QUOTES = re.compile(r'[\s:()"\[\]]')
# Open ends of a submitted-date window (arXiv opened in August 1991).
_EARLIEST = "199101010000"
_LATEST = "210001010000"

SYNTAX_HINT = (
    "Write terms as prefix:value (ti, au, abs, co, jr, cat, rn, id, all) or bare words, quote phrases "
    '(ti:"graph neural network"), join them with AND, OR or ANDNOT (upper case) and balance parentheses.'
)


def _syntax_error(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(message, field="query", reason=reasons.UNSUPPORTED_QUERY_SYNTAX, hint=SYNTAX_HINT)


def unknown_category(code: str, field_name: str) -> InvalidArgumentError:
    """The unknown_category error for ``code``, suggesting near matches."""
    near = taxonomy.suggest(code)
    maybe = f" Did you mean {', '.join(near)}?" if near else ""
    return InvalidArgumentError(
        f"{code!r} is not an arXiv category.{maybe}",
        field=field_name,
        reason=reasons.UNKNOWN_CATEGORY,
        hint="Call arxiv_list_categories for subject classes, or pass a bare archive code (cs, math, astro-ph, "
        "cond-mat …) to search a whole archive.",
    )


@dataclass(frozen=True)
class Term:
    prefix: str
    value: str


@dataclass
class Group:
    """Operands and operators in alternation: ``[operand, "AND", operand, ...]``."""

    items: list[Term | Group | str] = field(default_factory=list)

    @property
    def operands(self) -> list[Term | Group]:
        return [i for i in self.items if not isinstance(i, str)]

    @property
    def operators(self) -> list[str]:
        return [i for i in self.items if isinstance(i, str)]


def _tokens(text: str) -> list[str]:
    """Split into words, parentheses, quoted phrases and bracketed ranges (a word may hold ``"…"`` or ``[…]``)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "()":
            out.append(ch)
            i += 1
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] not in "()":
                closer = {'"': '"', "[": "]"}.get(text[i])
                if closer:
                    end = text.find(closer, i + 1)
                    if end < 0:
                        raise _syntax_error(f"unterminated {text[i]} in the query")
                    i = end + 1
                else:
                    i += 1
            out.append(text[start:i])
    return out


def _quote(value: str) -> str:
    return f'"{value}"' if _NEEDS_QUOTES.search(value) else value


def _term(word: str) -> Term:
    prefix, sep, value = word.partition(":")
    canonical_prefix = _PREFIX_BY_LOWER.get(prefix.lower()) if sep else None
    if canonical_prefix is None:
        # A bare word; a trailing colon ("BERT:") is prose punctuation, not a field prefix.
        prefix, value = "all", word.rstrip(":") or word
    else:
        prefix = canonical_prefix
    if not value:
        raise _syntax_error(f"{word!r} has a field prefix but no value (no space after the colon)")
    if prefix in RANGE_PREFIXES:
        match = _RANGE_RE.match(value)
        if not match:
            raise _syntax_error(f"{prefix} takes a range like [202401010000 TO 202401312359], not {value!r}")
        return Term(prefix, f"[{match.group(1)} TO {match.group(2)}]")
    if value.startswith('"') and value.endswith('"') and len(value) >= 2:
        value = " ".join(value[1:-1].split())
        if not value:
            raise _syntax_error(f"{word!r} is an empty phrase")
        return Term(prefix, _quote(value))
    if '"' in value:
        raise _syntax_error(f"{word!r}: quote a whole value, e.g. {prefix}:\"two words\"")
    if prefix == "cat" and "*" not in value:
        code = taxonomy.canonical(value)
        if code is None:
            raise unknown_category(value, "query")
        value = code
    return Term(prefix, _quote(value))


def parse(text: str) -> Group:
    """Parse a query into a group; juxtaposed operands get an explicit AND.

    Raises:
        InvalidArgumentError: reason ``unsupported_query_syntax`` (unbalanced parentheses, dangling
            operator, empty group) or ``unknown_category`` (a ``cat:`` value outside the taxonomy).
    """
    tokens = _tokens(text)
    # "AND NOT" is the spelling people reach for; arXiv's operator is ANDNOT.
    merged: list[str] = []
    for tok in tokens:
        if tok == "NOT" and merged and merged[-1] == "AND":
            merged[-1] = "ANDNOT"
        else:
            merged.append(tok)
    group, pos = _parse_group(merged, 0, depth=0)
    if pos != len(merged):
        raise _syntax_error("a closing parenthesis has no opening one")
    if not group.items:
        raise _syntax_error("the query has no search terms")
    return group


def _parse_group(tokens: list[str], pos: int, depth: int) -> tuple[Group, int]:
    group = Group()
    while pos < len(tokens):
        tok = tokens[pos]
        if tok == ")":
            if depth == 0:
                raise _syntax_error("a closing parenthesis has no opening one")
            break
        expecting_operand = not group.items or isinstance(group.items[-1], str)
        if tok in OPERATORS:
            if expecting_operand:
                raise _syntax_error(f"{tok} needs a search term on its left")
            group.items.append(tok)
            pos += 1
            continue
        if tok == "NOT":
            raise _syntax_error("arXiv has no unary NOT; write 'A ANDNOT B'")
        if not expecting_operand:
            group.items.append("AND")
        if tok == "(":
            inner, pos = _parse_group(tokens, pos + 1, depth + 1)
            if pos >= len(tokens) or tokens[pos] != ")":
                raise _syntax_error("an opening parenthesis is never closed")
            if not inner.items:
                raise _syntax_error("empty parentheses")
            group.items.append(inner)
            pos += 1
        else:
            group.items.append(_term(tok))
            pos += 1
    if group.items and isinstance(group.items[-1], str):
        raise _syntax_error(f"{group.items[-1]} needs a search term on its right")
    return group, pos


def _is_expansion_of(group: Group, archive: str) -> bool:
    """True when ``group`` is an OR-only list of cat: terms naming every subject class of ``archive``."""
    if any(op != "OR" for op in group.operators):
        return False
    cats = set()
    for operand in group.operands:
        if not isinstance(operand, Term) or operand.prefix != "cat":
            return False
        cats.add(operand.value)
    return taxonomy.archive_leaves(archive) <= cats


def category_clause(code: str) -> str:
    """The clause a category stands for: a leaf as ``cat:code``, an archive as its whole expansion."""
    if taxonomy.is_archive(code):
        return "(" + " OR ".join(f"cat:{c}" for c in taxonomy.archive_codes(code)) + ")"
    return f"cat:{code}"


def render(node: Term | Group, parent: Group | None = None) -> str:
    """Render a parsed query in arXiv syntax (a fixed point: ``render(parse(render(g))) == render(g)``)."""
    if isinstance(node, Group):
        body = " ".join(i if isinstance(i, str) else render(i, node) for i in node.items)
        return body if parent is None else f"({body})"
    if node.prefix == "cat" and taxonomy.is_archive(node.value):
        if parent is not None and _is_expansion_of(parent, node.value):
            return f"cat:{node.value}"
        return category_clause(node.value)
    return f"{node.prefix}:{node.value}"


def parse_day(raw: str | None, field_name: str) -> date | None:
    """A YYYY-MM-DD string as a date (None or "" for no bound).

    Raises:
        InvalidArgumentError: reason ``invalid_date_range``: not a real calendar date.
    """
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise InvalidArgumentError(
            f"{field_name}={raw!r} is not a real calendar date (YYYY-MM-DD, UTC)",
            field=field_name,
            reason=reasons.INVALID_DATE_RANGE,
            hint="Pass a real UTC date such as 2024-02-29, or omit the bound.",
        ) from None


def date_clause(start: date | None, end: date | None) -> str | None:
    """The submittedDate range for an inclusive UTC window, or None without bounds.

    The upper bound is the next day's 00:00, inclusive, so consecutive windows leave no gap (a paper
    submitted exactly at midnight falls in both; de-duplicate by id).

    Raises:
        InvalidArgumentError: reason ``invalid_date_range``: the window starts after it ends.
    """
    if start is None and end is None:
        return None
    if start and end and start > end:
        raise InvalidArgumentError(
            f"submitted_from {start.isoformat()} is after submitted_to {end.isoformat()}",
            field="submitted_from",
            reason=reasons.INVALID_DATE_RANGE,
            hint="Swap the dates: submitted_from must be on or before submitted_to.",
        )
    low = f"{start:%Y%m%d}0000" if start else _EARLIEST
    high = f"{end + timedelta(days=1):%Y%m%d}0000" if end else _LATEST
    return f"submittedDate:[{low} TO {high}]"


def build_query(query: str, category: str | None, submitted_from: str | None, submitted_to: str | None) -> str:
    """The effectiveQuery: the parsed query with the category and date window folded in.

    Raises:
        InvalidArgumentError: reasons ``unsupported_query_syntax``, ``unknown_category``, ``invalid_date_range``.
    """
    root = parse(query)
    clauses = []
    if category:
        code = taxonomy.canonical(category)
        if code is None:
            raise unknown_category(category, "category")
        clauses.append(category_clause(code))
    window = date_clause(parse_day(submitted_from, "submitted_from"), parse_day(submitted_to, "submitted_to"))
    if window:
        clauses.append(window)
    text = render(root)
    if not clauses:
        return text
    if root.operators:
        text = f"({text})"
    return " AND ".join([text, *clauses])
