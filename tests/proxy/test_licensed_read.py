"""A licensed paper through the library proxy, for the one who holds the licence and for no one else.

The PDF pipeline's steps run in-process on moto (download → convert → finish), the web answered by the fake EZproxy
(tests.fakes.library_proxy); read_paper is then called as a caller calls it (scholar.runtime.family.run_tool).
Caller A is this machine's person (``local``) with SCHOLAR_LIBRARY_PROXY set; caller B has no proxy.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from scholar.core.errors import FORBIDDEN, NOT_FOUND, ScholarError
from scholar.runtime.family import run_tool
from scholar.runtime.invocation import Invocation
from scholar.services.fulltext import artifacts, jobs
from scholar.services.fulltext.licensed import KEYRING_SERVICE, SESSION_ENTRY
from scholar.services.fulltext.models import Job
from scholar.services.pipeline import convert, download, finish
from scholar.store.owned_pdfs import get_owned_pdf
from scholar.store.tasks import TaskItem, TaskStore
from tests.connectors.conftest import MemoryKeyring
from tests.fakes.library_proxy import COOKIE, NAME, FakeLibraryProxy
from tests.fixtures.env import Env
from tests.proxy.conftest import pdf_bytes

A, B = "local", "key-2"
DOI = "10.5555/licensed.1"
IDENTIFIER = f"doi:{DOI}"
JOB = Job(kind="paper", tool="read_paper", identifier=IDENTIFIER, s2_key=f"DOI:{DOI}",
          read={"pages": "1-", "max_chars": 40_000})
# An open location that turns out to have nothing (tried first, as every open copy is).
RESOLVED = {"metadata": {"title": "A licensed paper", "doi": DOI}, "error": None, "failed_sources": [],
            "candidates": [{"source": "unpaywall", "url": "https://repository.example/licensed.pdf"}]}


def run_pipeline(principal: str, resolved: dict[str, Any] | None = None) -> TaskItem:
    """download → convert → finish for ``principal``'s read_paper task (resolve's answer given); the finished task."""
    task_id = f"lic{principal.replace('-', '')}{time.monotonic_ns()}"
    TaskStore().create(TaskItem(task_id=task_id, principal=principal, tool=JOB.tool,
                                expires_at=int(time.time()) + 60))
    event: dict[str, Any] = {"task_id": task_id, "principal": principal, "job": JOB.model_dump(mode="json"),
                             "resolved": resolved or RESOLVED}
    event["downloaded"] = download(event)
    if not event["downloaded"].get("error"):
        event["converted"] = convert(event)
    finish(event)
    task = TaskStore().get(task_id, principal)
    assert task is not None
    return task


def read(principal: str) -> dict[str, Any]:
    arguments = {"identifier": f"DOI:{DOI}", "pages": "1-"}
    return asyncio.run(run_tool("research", Invocation(tool="read_paper", arguments=arguments, principal=principal)))


def test_the_licence_holder_reads_the_publisher_version_through_the_proxy(proxied: FakeLibraryProxy,
                                                                         memory_keyring: MemoryKeyring) -> None:
    task = run_pipeline(A)
    assert task.status == "completed", task.error
    result = task.result or {}
    assert result["pdf_source"] == "library_proxy" and result["pdf_path"].startswith("mine/")
    assert result.get("pdf_url") is None  # no shared download link to the caller's licensed copy
    assert result["markdown"] and result["md_path"].startswith("owned/")
    # open copies first: the repository was tried before the proxy
    assert proxied.requests[0] == "GET repository.example/licensed.pdf"
    assert proxied.requests[1].startswith(f"GET doi-org.{NAME}/")
    assert get_owned_pdf(A, result["pdf_path"]) == pdf_bytes()
    # the shared content-addressed space never saw it
    assert not artifacts.exists(artifacts.pdf_key(result["sha256"]))
    assert not artifacts.exists(artifacts.md_key(result["sha256"], "builtin"))
    # the session the sign-in opened is kept for the next fetch (this machine's keyring)
    assert COOKIE in json.loads(memory_keyring.entries[(KEYRING_SERVICE, SESSION_ENTRY)])
    # read again: answered from A's own stored copy, without new work
    again = read(A)
    assert again["cached"] is True and again["pdf_source"] == "library_proxy" and again["markdown"]


def test_someone_else_gets_not_found_for_full_text_not_the_licence_holder_s_copy(proxied: FakeLibraryProxy) -> None:
    assert run_pipeline(A).status == "completed"
    # B asks for the same paper after A's read: nothing cached answers B ...
    assert jobs.cached_answer(JOB, B) is None
    answer = read(B)
    assert answer.get("queued") is True and "markdown" not in answer
    # the pipeline's resolve step finds no stored copy for B either (A's record is A's)
    assert artifacts.recall_owned(B, IDENTIFIER) is None and artifacts.recall_owned(A, IDENTIFIER) is not None
    # ... and B's own run has no proxy: not_found for full text, with only the open location tried
    task = run_pipeline(B)
    assert task.status == "failed" and task.error is not None and task.error["code"] == NOT_FOUND
    attempts = task.error["details"]["attempts"]
    assert [a["source"] for a in attempts] == ["unpaywall"]
    with pytest.raises(ScholarError) as caught:  # A's reference read by B
        get_owned_pdf(B, artifacts.recall_owned(A, IDENTIFIER)[1].pdf_path)  # type: ignore[index]  # asserted above
    assert caught.value.code == NOT_FOUND


def test_an_expired_session_is_forbidden_and_says_how_to_sign_in_again(
        proxied: FakeLibraryProxy, env: Env, memory_keyring: MemoryKeyring) -> None:
    env.delete("SCHOLAR_LIBRARY_PROXY_PASSWORD")  # no sign-in at hand: only the held session
    memory_keyring.set_password(KEYRING_SERVICE, SESSION_ENTRY, json.dumps({COOKIE: proxied.session()}))
    proxied.expire()
    task = run_pipeline(A)
    assert task.status == "failed" and task.error is not None
    assert (task.error["code"], task.error["reason"]) == (FORBIDDEN, "proxy_session_expired")
    assert "scholar library proxy login" in task.error["recovery"]["hint"]


def test_a_publisher_page_without_a_pdf_is_a_not_found_naming_the_proxy(proxied: FakeLibraryProxy) -> None:
    resolved = {**RESOLVED, "metadata": {"title": "Landing only", "doi": "10.5555/landing.only"}}
    task = run_pipeline(A, resolved)
    assert task.error is not None and (task.error["code"], task.error["reason"]) == (NOT_FOUND, "proxy_no_pdf")
    assert "library proxy" in task.error["message"]


def test_a_table_of_the_licensed_copy_is_rendered_from_the_holder_s_own_pdf(proxied: FakeLibraryProxy) -> None:
    assert run_pipeline(A).status == "completed"
    arguments = {"identifier": f"DOI:{DOI}", "table": "Table 1"}
    answer = asyncio.run(run_tool("research", Invocation(tool="read_paper", arguments=arguments, principal=A)))
    assert answer["figure"]["label"] == "Table 1" and answer["pdf_source"] == "library_proxy"
