"""Route table of the fake upstream: the recorded requests of the PROVENANCE files, and how a request picks one.

Matching policy (``RouteTable.match``), tried in this order; explicit routes (``add_route``) are tried before
recorded ones at every stage, the newest explicit route first:

1. exact: same method, source and path, the same query (as a multiset of pairs; a route whose query is ``None``
   accepts any query) and, when the route recorded a body, an equal body (JSON-equal, form-equal, or equal bytes).
2. nearest: same method, source and path, whatever the query and body; the best scores highest on
   (body equal, query pairs shared, query keys shared, recorded status is 2xx, fewest recorded pairs the request
   lacks); a tie goes to the route registered first.

Paths are compared percent-decoded, without a trailing slash, case-sensitively except from a DOI (``10.NNNN/``) on.
The constraint behind step 2: the recordings hold other clients' parameter lists (``fields=``, ``mailto=``), which
our clients never send verbatim, so exact matching alone would answer 404 to nearly every end-to-end request.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from scholar.sources.registry import SOURCES

# Hosts that serve a source besides its default base (DESIGN §6: one name per host).
HOST_ALIASES = {"ar5iv.org": "ar5iv", "ar5iv.labs.arxiv.org": "ar5iv"}

Query = tuple[tuple[str, str], ...]

_METHOD_URL = re.compile(r"\b(GET|POST|PUT|DELETE|HEAD|PATCH)\s+(https?://\S+)")
_DOI = re.compile(r"10\.\d{4,9}/")
_EXTENSION_TYPES = {
    ".json": "application/json",
    ".xml": "application/xml",
    ".html": "text/html; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    # raw.githubusercontent.com serves YAML as plain text.
    ".yaml": "text/plain; charset=utf-8",
    ".zip": "application/zip",
    ".pdf": "application/pdf",
    ".tiff": "image/tiff",
    ".meta": "text/plain; charset=utf-8",
}


@dataclass(frozen=True)
class Route:
    """One canned answer: the request it answers and the response it gives."""

    method: str
    source: str
    path: str  # as recorded (may hold percent-escapes); compare through ``key_path``
    query: Query | None  # None: any query
    status: int
    response: bytes | Path
    content_type: str
    request_body: bytes | None = None  # None: any body
    headers: tuple[tuple[str, str], ...] = ()
    file: str | None = None  # fixture path relative to the fixtures folder
    reconstructed: bool = False  # the PROVENANCE row says the request was inferred, not recorded
    explicit: bool = False
    key_path: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key_path", normalise_path(self.path))

    def read(self) -> bytes:
        """Return the response body (files are read on each request, so large fixtures are not held)."""
        return self.response.read_bytes() if isinstance(self.response, Path) else self.response


@dataclass(frozen=True)
class Skipped:
    """A PROVENANCE row that gave no route, and why."""

    file: str
    reason: str


def source_for_host(host: str) -> str | None:
    """Return the source name serving ``host`` (DESIGN §6), or None for a host we do not call."""
    hosts = {urlsplit(s.default_base).hostname: s.name for s in SOURCES.values() if s.default_base}
    return HOST_ALIASES.get(host) or hosts.get(host)


def normalise_path(path: str) -> str:
    """Return the comparison key of a path: percent-decoded, no trailing slash, DOI part lower-cased."""
    key = unquote(path)
    if len(key) > 1:
        key = key.rstrip("/")
    doi = _DOI.search(key)
    if doi:
        start = key.rfind("/", 0, doi.start()) + 1  # the whole segment, so "DOI:10.x" and "doi:10.x" agree
        key = key[:start] + key[start:].lower()
    return key


def parse_query(raw: str) -> Query:
    """Return a query string as ordered (name, value) pairs, blanks kept."""
    return tuple(parse_qsl(raw, keep_blank_values=True))


def content_type_for(name: str, head: bytes) -> str:
    """Guess a fixture's Content-Type from its first bytes, else from its file extension."""
    start = head.lstrip()[:200].lower()
    if start[:1] in (b"{", b"["):
        return "application/json"
    if head.startswith(b"%PDF"):
        return "application/pdf"
    if head.startswith(b"PK\x03\x04"):
        return "application/zip"
    if start.startswith((b"<!doctype html", b"<html")):
        return "text/html; charset=utf-8"
    if start.startswith(b"<"):
        return "application/atom+xml" if b"<feed" in head[:600] else "application/xml"
    return _EXTENSION_TYPES.get(Path(name).suffix.lower(), "application/octet-stream")


def same_body(a: bytes, b: bytes) -> bool:
    """Tell whether two request bodies say the same thing (JSON-equal, form-equal, or equal bytes)."""
    try:
        return bool(json.loads(a) == json.loads(b))
    except ValueError:
        pass
    if b"=" in a and b"=" in b:
        return sorted(parse_qsl(a.decode(errors="replace"))) == sorted(parse_qsl(b.decode(errors="replace")))
    return a.strip() == b.strip()


def _request_body(method: str, rest: str) -> bytes | None:
    """Return the body a PROVENANCE request cell records after its URL (``body=…`` or ``(body: …)``)."""
    if method not in ("POST", "PUT", "PATCH"):
        return None  # text after a GET URL is a note, e.g. "(query inferred)"
    rest = rest.strip()
    if rest.startswith("body="):
        return rest[len("body=") :].encode()
    if rest.startswith("(") and rest.endswith(")"):
        inner = rest[1:-1].strip()
        return inner.removeprefix("body:").strip().encode()
    return None


def _row_route(cells: dict[str, str], fixtures: Path) -> Route | Skipped:
    """Build the route of one PROVENANCE table row, or say why it has none."""
    file = cells["file"].strip("` ")
    request = cells["request"].strip("` ")
    found = _METHOD_URL.search(request)
    if not found:
        return Skipped(file, f"no HTTP request recorded ({request[:60]})")
    if not (fixtures / file).is_file():
        return Skipped(file, "file missing from the fixtures folder")
    method, url = found.group(1), found.group(2).rstrip(");,")
    parts = urlsplit(url)
    source = source_for_host(parts.hostname or "")
    folder = Path(file).parts[1] if file.startswith("upstream/") else ""
    if source is None and folder in SOURCES:
        source = folder  # recorded against a local mirror (e.g. host.docker.internal): the folder names the source
    if source is None:
        return Skipped(file, f"host {parts.hostname} is not a source")
    status = re.match(r"\d{3}", cells["status"].strip())
    if not status:
        return Skipped(file, f"no status ({cells['status']})")
    path = fixtures / file
    with path.open("rb") as handle:
        head = handle.read(600)
    notes = cells.get("notes", "").lower()
    return Route(
        method=method,
        source=source,
        path=parts.path or "/",
        query=parse_query(parts.query),
        status=int(status.group()),
        response=path,
        content_type=content_type_for(file, head),
        request_body=_request_body(method, request[found.end() :]),
        file=file,
        reconstructed=found.start() > 0 or "reconstructed" in notes or "inferred" in notes or "inferred" in request,
    )


def _columns(header: list[str]) -> dict[int, str]:
    """Name the columns we read (file, request, status, notes) by their header text."""
    names: dict[int, str] = {}
    for index, title in enumerate(header):
        title = title.lower()
        for name in ("file", "request", "status", "notes"):
            if title.startswith(name) or (name == "request" and "request" in title):
                names.setdefault(index, name)
    return names


def parse_provenance(text: str, fixtures: Path) -> tuple[list[Route], list[Skipped]]:
    """Read the routes of one PROVENANCE markdown file (every table row whose header has file and request).

    Args:
        text: the markdown.
        fixtures: the fixtures folder the row paths are relative to.

    Returns:
        The routes in row order, and the rows that gave none.
    """
    routes: list[Route] = []
    skipped: list[Skipped] = []
    columns: dict[int, str] = {}
    for line in text.splitlines():
        if not line.startswith("|"):
            columns = {}
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if not columns:
            columns = _columns(cells)
            continue
        if all(set(cell) <= {"-", "|", ":"} for cell in cells):
            continue  # the |---|---| separator
        named = {name: cells[index] for index, name in columns.items() if index < len(cells)}
        if {"file", "request", "status"} <= named.keys():
            result = _row_route(named, fixtures)
            if isinstance(result, Route):
                routes.append(result)
            else:
                skipped.append(result)
    return routes, skipped


def load_recorded_routes(fixtures: Path) -> tuple[list[Route], list[Skipped]]:
    """Read every ``PROVENANCE-*.md`` in ``fixtures`` and keep one route per recorded request.

    When several files record the same request, the one whose extension matches the URL's wins (the served
    ``index-v1.zip``, not its YAML excerpt); otherwise the last row wins (the newer capture). Losers are skipped.
    """
    routes: list[Route] = []
    skipped: list[Skipped] = []
    for provenance in sorted(fixtures.glob("PROVENANCE-*.md")):
        found, missed = parse_provenance(provenance.read_text(encoding="utf-8"), fixtures)
        routes += found
        skipped += missed
    chosen: dict[tuple[object, ...], Route] = {}
    for route in routes:
        key = (route.method, route.source, route.key_path, tuple(sorted(route.query or ())), route.request_body)
        held = chosen.get(key)
        if held is not None and _extension_fits(held) and not _extension_fits(route):
            skipped.append(Skipped(route.file or "", f"same request as {held.file}"))
            continue
        if held is not None:
            skipped.append(Skipped(held.file or "", f"same request as {route.file}"))
        chosen[key] = route
    return list(chosen.values()), skipped


def _extension_fits(route: Route) -> bool:
    suffix = Path(route.path).suffix
    return bool(suffix) and Path(route.file or "").suffix == suffix


class RouteTable:
    """Recorded and explicit routes, matched by the policy in the module docstring."""

    def __init__(self, recorded: list[Route]) -> None:
        self.recorded = list(recorded)
        self.explicit: list[Route] = []

    def add(self, route: Route) -> None:
        """Register an explicit route; it wins over recorded ones and over older explicit ones."""
        self.explicit.insert(0, route)

    def clear_explicit(self) -> None:
        """Forget every explicit route."""
        self.explicit.clear()

    def match(self, method: str, source: str, path: str, query: Query, body: bytes) -> Route | None:
        """Return the route answering a request, or None when no route has its method, source and path."""
        key = normalise_path(path)
        groups = [
            [r for r in group if r.method == method and r.source == source and r.key_path == key]
            for group in (self.explicit, self.recorded)
        ]
        for group in groups:
            for route in group:
                if _exact(route, query, body):
                    return route
        for group in groups:
            if group:
                return max(group, key=lambda route: _score(route, query, body))  # max keeps the first best
        return None


def _exact(route: Route, query: Query, body: bytes) -> bool:
    query_ok = route.query is None or sorted(route.query) == sorted(query)
    return query_ok and (route.request_body is None or same_body(route.request_body, body))


def _score(route: Route, query: Query, body: bytes) -> tuple[int, int, int, int, int]:
    wanted = Counter(query)
    recorded = Counter(route.query or ())
    return (
        int(route.request_body is None or same_body(route.request_body, body)),
        sum((wanted & recorded).values()),
        len({k for k, _ in query} & {k for k, _ in route.query or ()}),
        int(200 <= route.status < 300),
        -sum((recorded - wanted).values()),
    )
