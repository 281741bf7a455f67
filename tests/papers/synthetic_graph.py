"""A SYNTHETIC citation graph served in the shapes of the recorded S2 answers (tests and benchmarks).

No recording holds a connected graph, so the edges are invented; the papers (ids, titles) come from the
recorded citation/reference lists, and every answer has the recorded shape: ``/citations`` and
``/references`` pages ``{"offset", "data": [{"citingPaper"|"citedPaper": {"paperId"}}]}`` and
``/paper/batch`` lists of paper objects (``null`` for unknown ids), as in paper_batch_*.json.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

import httpx

_NESTED = {"citations": "citingPaper", "references": "citedPaper"}
_LIST_RE = re.compile(r"/s2/graph/v1/paper/([^/]+)/(citations|references)$")


def recorded_papers(fixtures: Path) -> list[dict[str, str]]:
    """(paperId, title) of the real papers in the recorded citation and reference lists."""
    rows = []
    for name in ("paper_citations_offset0.json", "paper_references_offset0.json"):
        page = json.loads((fixtures / "upstream" / "semantic_scholar" / name).read_text())
        for row in page["data"]:
            paper = row.get("citingPaper") or row.get("citedPaper")
            if paper.get("paperId"):
                rows.append({"paperId": paper["paperId"], "title": paper["title"]})
    return list({r["paperId"]: r for r in rows}.values())


class SyntheticGraph:
    """Papers and who cites whom; answers S2 list and batch requests from that."""

    def __init__(
        self, papers: list[dict[str, str]], cites: dict[str, list[str]], aliases: dict[str, str] | None = None
    ) -> None:
        self.papers = {p["paperId"]: p for p in papers}
        self.cites = cites  # paper → the papers it cites (its references), in order
        self.aliases = aliases or {}  # "DOI:…" → paperId

    def references(self, pid: str) -> list[str]:
        return list(self.cites.get(pid, []))

    def citations(self, pid: str) -> list[str]:
        return [citing for citing, cited in self.cites.items() if pid in cited]

    def record(self, pid: str) -> dict[str, object] | None:
        paper = self.papers.get(self.aliases.get(pid, pid))
        if paper is None:
            return None
        index = list(self.papers).index(paper["paperId"])
        return {
            "paperId": paper["paperId"],
            "externalIds": {"CorpusId": 1000 + index},
            "title": paper["title"],
            "year": 1990 + index % 30,
            "citationCount": len(self.citations(paper["paperId"])) * 10 + index,
            "fieldsOfStudy": ["Economics"] if index % 2 else ["Computer Science"],
        }

    def page(self, pid: str, kind: str, limit: int = 1000) -> dict[str, object]:
        ids = self.citations(pid) if kind == "citations" else self.references(pid)
        page: dict[str, object] = {"offset": 0, "data": [{_NESTED[kind]: {"paperId": i}} for i in ids[:limit]]}
        if len(ids) > limit:
            page["next"] = limit
        return page

    def batch(self, ids: Iterable[str]) -> list[dict[str, object] | None]:
        return [self.record(i) for i in ids]

    def respond(self, request: httpx.Request) -> httpx.Response:
        """A respx side effect for every S2 graph request."""
        path = request.url.path
        if path.endswith("/paper/batch"):
            return httpx.Response(200, json=self.batch(json.loads(request.content)["ids"]))
        match = _LIST_RE.search(path)
        if match and match.group(1) in self.papers:
            limit = int(request.url.params.get("limit", "1000"))
            return httpx.Response(200, json=self.page(match.group(1), match.group(2), limit))
        return httpx.Response(404, json={"error": f"Paper with id {match.group(1) if match else path} not found"})

    def install(self, router) -> object:
        """Route every S2 graph request of a respx router here; returns the route (call_count, calls)."""
        return router.route(path__regex=r"^/s2/graph/v1/paper/").mock(side_effect=self.respond)

    def install_fake(self, fake, batches: Iterable[list[str]] = ()) -> None:
        """Serve the graph from a FakeUpstream: every list, and a batch answer per expected id list."""
        for pid in self.papers:
            for kind in ("citations", "references"):
                body = json.dumps(self.page(pid, kind)).encode()
                fake.add_route("GET", "s2", f"/graph/v1/paper/{pid}/{kind}", body=body, content_type="application/json")
        for ids in batches:
            fake.add_route("POST", "s2", "/graph/v1/paper/batch", body=json.dumps(self.batch(ids)).encode(),
                           content_type="application/json", request_body=json.dumps({"ids": list(ids)}).encode())

    def bfs(self, seed: str, depth: int, kind: str = "citations") -> list[str]:
        """The nodes a unfiltered traversal reaches, in discovery order (what the hydration batch asks for)."""
        order, frontier = [seed], [seed]
        for _ in range(depth):
            nxt = []
            for pid in frontier:
                for other in (self.citations(pid) if kind == "citations" else self.references(pid)):
                    if other not in order:
                        order.append(other)
                        nxt.append(other)
            frontier = nxt
        return order
