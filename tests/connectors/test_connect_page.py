"""The hosted connect page: a one-time link from library_connections, the key posted on our page, sealed for the
principal the link was issued to; never echoed, never reusable."""

from __future__ import annotations

import logging
from urllib.parse import parse_qs, urlsplit

from scholar.store.connections import ConnectionStore
from tests.connectors.conftest import PUBLIC
from tests.connectors.test_sync_tools import call
from tests.fakes.zotero import PUBLIC_LIBRARY

KEY = "AbCdEf0123456789GhIjKlMn"


def _link(lambda_context, principal: str) -> str:
    url = call(lambda_context, "library_connections", {}, principal=principal)["connect_url"]
    assert url.startswith(f"{PUBLIC}/connect/zotero?t=")
    return parse_qs(urlsplit(url).query)["t"][0]


def test_the_link_connects_its_own_callers_library_once(page, lambda_context, caplog):
    caplog.set_level(logging.DEBUG)
    token = _link(lambda_context, "alice")
    form = page.get("/connect/zotero", params={"t": token})
    assert form.status_code == 200 and "frame-ancestors 'none'" in form.headers["content-security-policy"]
    typo = page.post("/connect/zotero", data={"t": token, "library": "user/1", "key": KEY})
    assert typo.status_code == 400  # a typo does not use up the link
    done = page.post("/connect/zotero", data={"t": token, "library": PUBLIC_LIBRARY, "key": KEY})
    assert done.status_code == 200 and PUBLIC_LIBRARY in done.text
    assert ConnectionStore("alice").credentials("zotero")[1].get_secret_value() == KEY
    assert ConnectionStore("bob").connection("zotero") is None
    again = page.post("/connect/zotero", data={"t": token, "library": PUBLIC_LIBRARY, "key": KEY})
    assert again.status_code == 400
    listed = call(lambda_context, "library_connections", {}, principal="alice")
    assert "connect_url" not in listed and listed["connections"][0]["has_key"] is True
    assert KEY not in form.text + typo.text + done.text + again.text + caplog.text + str(listed)


def test_an_unknown_or_forged_token_connects_nobody(page):
    for token in ("x" * 43, "../../etc", ""):
        answer = page.post("/connect/zotero", data={"t": token, "library": PUBLIC_LIBRARY, "key": KEY})
        assert answer.status_code == 400
    assert page.get("/connect/zotero", params={"t": "<script>"}).status_code == 400
