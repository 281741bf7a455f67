"""Run as ``python -m tests.transfer.child FAKE_URL ACTION [ARGS…]``: one machine of a library transfer, in its own
process (the local backend is the whole process's; the deployment runs in the test's process).

Web hosts that are not our sources (a publisher's PDF) reach the fake upstream at FAKE_URL (tests.fakes.web), so
this machine's own pipeline can keep a PDF; every source points at it through ``SCHOLAR_UPSTREAM_PROXY_BASE``.

Actions (each prints one JSON document on stdout, except ``cli``):
    seed            keep the PNAS paper's PDF (collection reading) with tags and notes, add a second paper to
                    collection tissue, create the empty collection empty-shelf.
    seed-one        add the PNAS paper alone.
    seed-corpus COUNT [INDEX TAGS]  import COUNT items of real recorded records (tests.library.corpus), the item
                    at INDEX holding TAGS tags; prints their ids in order.
    export [pdfs]   this machine's library as library_export format=jsonl (a stored one read back: stored true);
                    ``pdfs``: and each item's PDF records and the PDF read back by resources/read (``pdfs``).
    cli ARGS…       ``scholar ARGS…`` (its exit status is this process's).
    oauth-push URL LOGIN|none   push URL without a key, signing in as LOGIN (``none``: a browser that must not be
                    needed); prints the report and the browser's visits.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from typing import Any

import httpx

from scholar.web import fetch
from tests.fakes.web import web_access

PNAS_DOI = "10.1073/pnas.1414271111"  # recorded: semantic_scholar, crossref, unpaywall, openalex
SECOND = "10.1023/a:1007154515475"  # recorded: openalex (work_by_doi_springer_1999)


def _library() -> Any:
    from scholar import Scholar

    return Scholar()


def seed() -> dict[str, Any]:
    with _library() as scholar:
        kept = scholar.download_paper(identifier=PNAS_DOI, collection="reading")
        scholar.library_add(identifier=PNAS_DOI, tags=["hypoxia", "tissue/cartilage"], notes="read §3 again\nthen cite")
        scholar.library_add(identifier=SECOND, collection="tissue", tags=["thermometry"])
        scholar.library_collections(action="create", name="empty-shelf")
        return {"kept": kept["sha256"]}


def seed_one() -> dict[str, Any]:
    with _library() as scholar:
        return scholar.library_add(identifier=PNAS_DOI, tags=["oauth"])


def seed_corpus(count: str, index: str = "-1", tags: str = "0") -> dict[str, Any]:
    from scholar.services.library.export import to_jsonl
    from tests.library.corpus import items

    chosen = items(int(count))
    if int(index) >= 0:
        chosen[int(index)] = chosen[int(index)].model_copy(update={"tags": [f"t{n}" for n in range(int(tags))]})
    with _library() as scholar:
        scholar.library_import(jsonl=to_jsonl(chosen))
    return {"ids": [item.item_id for item in chosen]}


def export(pdfs: str = "") -> dict[str, Any]:
    """library_export format=jsonl; a stored one (too large to answer inline) read back by its reference; with
    ``pdfs``, also each item's PDF records and the PDF read back (as tests.transfer.deployment.pdfs_held)."""
    from scholar.local.calls import LOCAL_PRINCIPAL
    from scholar.services.library.snapshot import read_reference

    with _library() as scholar:
        answer = scholar.library_export(format="jsonl")
        if answer.get("content") is None:
            answer["content"] = read_reference(answer["reference"], LOCAL_PRINCIPAL)
            answer["stored"] = True
        if pdfs:
            answer["pdfs"] = _pdfs_held(answer["content"])
        return answer


def _pdfs_held(jsonl: str) -> dict[str, Any]:
    """Each item's PDF records' sha256 and the PDF's read back by the resources/read handler the MCP servers call
    (``scholar://library/{item_id}/pdf``), None when there is no file."""
    from scholar.core.errors import NotFoundError
    from scholar.core.resource_actions import READ_ACTION
    from scholar.families.research.resources.handlers import resource_read
    from scholar.local.calls import LOCAL_PRINCIPAL
    from scholar.services.library.snapshot import parse_snapshot

    out: dict[str, Any] = {}
    for item in parse_snapshot(jsonl).items:
        try:
            read = resource_read({"action": READ_ACTION, "principal": LOCAL_PRINCIPAL,
                                  "uri": f"scholar://library/{item.item_id}/pdf"})
            sha = hashlib.sha256(base64.b64decode(read.contents[0].blob or "")).hexdigest()
        except NotFoundError:
            sha = None
        out[item.item_id] = ([pdf.sha256 for pdf in item.pdfs], sha)
    return out


class SignIn:
    """The browser step of a test: follows the authorization URL (login_hint signs in at once) to the callback."""

    def __init__(self, login: str) -> None:
        self.login = login
        self.visits = 0

    async def __call__(self, url: str) -> None:
        self.visits += 1
        if self.login == "none":
            raise AssertionError("the saved sign-in should have been used")
        async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
            response = await http.get(str(httpx.URL(url).copy_add_param("login_hint", self.login)))
            while response.status_code == 302:
                response = await http.get(response.headers["location"])  # the last one is our loopback listener
            response.raise_for_status()


def oauth_push(url: str, login: str) -> dict[str, Any]:
    from scholar.local.transfer import push

    browser = SignIn(login)
    report = push(url, pdfs=False, browser=browser)
    return {"report": report, "visits": browser.visits}


def main(argv: list[str]) -> int:
    fake_url, action, *rest = argv
    fetch.set_web_access(web_access(fake_url))
    if action == "cli":
        from scholar.local.cli import main as scholar

        return scholar(rest)
    answers = {"seed": seed, "seed-one": seed_one, "seed-corpus": seed_corpus, "export": export,
               "oauth-push": oauth_push}
    result = answers[action](*rest)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
