"""Hosted: a caller connects their library proxy on our page (never through the model), and only their fetches use it.

The link comes from library_connections (connect: proxy) behind the sign-in; the proxy and the sign-in are posted on
/connect/proxy and sealed for that principal (KMS). Then the PDF pipeline's download step, for that caller and for
another, with the web answered by the fake EZproxy (tests.fakes.library_proxy).
"""

from __future__ import annotations

import json
import logging
import time
from urllib.parse import parse_qs, urlsplit

from scholar.core.errors import NOT_FOUND
from scholar.services.fulltext.licensed import proxy_access
from scholar.services.fulltext.models import Job
from scholar.services.pipeline import download
from scholar.store.connections import ConnectionStore
from scholar.store.owned_pdfs import get_owned_pdf
from scholar.store.tasks import TaskItem, TaskStore
from scholar.web import fetch
from tests.connectors.conftest import PUBLIC
from tests.connectors.test_sync_tools import call
from tests.fakes.library_proxy import NAME, PREFIX, FakeLibraryProxy, public_resolver
from tests.fixtures_dir import fixtures_dir

PASSWORD = "correct horse"
DOI = "10.5555/licensed.1"
PATH = "/connect/proxy"


def _link(lambda_context, principal: str) -> str:
    url = call(lambda_context, "library_connections", {"connect": "proxy"}, principal=principal)["connect_url"]
    assert url.startswith(f"{PUBLIC}{PATH}?t=")
    return parse_qs(urlsplit(url).query)["t"][0]


def test_the_proxy_and_sign_in_are_sealed_for_the_caller_who_typed_them(page, lambda_context, caplog):
    caplog.set_level(logging.DEBUG)
    token = _link(lambda_context, "alice")
    form = page.get(PATH, params={"t": token})
    assert form.status_code == 200 and "library proxy" in form.text
    typo = page.post(PATH, data={"t": token, "library": "not a proxy", "user": "alice", "password": PASSWORD})
    assert typo.status_code == 400  # a typo does not use up the link
    no_secret = page.post(PATH, data={"t": token, "library": PREFIX, "user": "alice"})
    assert no_secret.status_code == 400
    done = page.post(PATH, data={"t": token, "library": PREFIX, "user": "alice", "password": PASSWORD})
    assert done.status_code == 200 and f"login.{NAME}" in done.text
    written, sealed = ConnectionStore("alice").credentials("proxy")
    assert written == PREFIX and json.loads(sealed.get_secret_value()) == {"user": "alice", "password": PASSWORD}
    assert ConnectionStore("bob").connection("proxy") is None
    access = proxy_access("alice")
    assert access is not None and access.sign_in is not None and access.proxy.domain == NAME
    assert proxy_access("bob") is None
    again = page.post(PATH, data={"t": token, "library": PREFIX, "user": "alice", "password": PASSWORD})
    assert again.status_code == 400
    assert PASSWORD not in form.text + typo.text + done.text + again.text + caplog.text


def test_a_session_cookie_may_be_given_instead_of_a_sign_in(page, lambda_context):
    token = _link(lambda_context, "carol")
    done = page.post(PATH, data={"t": token, "library": NAME, "cookie": "ezproxy=Zx81abcdefgh"})
    assert done.status_code == 200
    access = proxy_access("carol")
    assert access is not None and access.sign_in is None and access.cookies == {"ezproxy": "Zx81abcdefgh"}


def _download(principal: str) -> dict:
    job = Job(kind="paper", tool="fetch_paper_pdf", identifier=f"doi:{DOI}", s2_key=f"DOI:{DOI}", convert=False)
    task_id = f"hosted{principal}{time.monotonic_ns()}"
    TaskStore().create(TaskItem(task_id=task_id, principal=principal, tool=job.tool, expires_at=int(time.time()) + 60))
    resolved = {"metadata": {"title": "A licensed paper", "doi": DOI}, "candidates": [], "error": None}
    return download({"task_id": task_id, "principal": principal, "job": job.model_dump(mode="json"),
                     "resolved": resolved})


def test_hosted_the_connected_caller_gets_the_licensed_pdf_and_another_caller_does_not(page, lambda_context):
    token = _link(lambda_context, "alice")
    page.post(PATH, data={"t": token, "library": NAME, "user": "alice", "password": PASSWORD})
    ezproxy = FakeLibraryProxy(pdf=(fixtures_dir() / "pdfs" / "arxiv_2305.03393v1_page9_only.pdf").read_bytes())
    fetch.set_web_access(fetch.WebAccess(resolver=public_resolver, transport=ezproxy.transport))
    try:
        got = _download("alice")
        refused = _download("bob")
    finally:
        fetch.set_web_access(None)
    assert got["pdf"]["pdf_source"] == "library_proxy" and ezproxy.sign_ins == 1
    assert get_owned_pdf("alice", got["pdf"]["pdf_path"]) == ezproxy.pdf
    assert refused["pdf"] is None and refused["error"]["code"] == NOT_FOUND
    assert all("bob" not in r for r in ezproxy.requests) and len(ezproxy.requests) == 5  # alice's walk only
