"""``scholar library proxy login`` / ``logout`` as a person runs them (scholar.local.cli.main.main), the fake EZproxy
answering: the session is kept in this machine's keyring and a later licensed read uses it."""

from __future__ import annotations

import io
import json
import threading

import httpx
import pytest

from scholar.core.errors import FORBIDDEN, ScholarError
from scholar.local import library_proxy
from scholar.local.cli.main import main
from scholar.local.cli.output import EXIT_CODES
from scholar.services.fulltext.licensed import KEYRING_SERVICE, PROXY_ENTRY, SESSION_ENTRY, USER_ENTRY
from tests.connectors.conftest import MemoryKeyring
from tests.fakes.library_proxy import COOKIE, NAME, FakeLibraryProxy
from tests.proxy.test_licensed_read import A, run_pipeline


def login(monkeypatch: pytest.MonkeyPatch, password: str) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    return main(["library", "proxy", "login", "--proxy", NAME, "--user", "alice", "--password-stdin"])


def test_login_with_the_form_keeps_the_session_and_a_later_read_uses_it(
        proxied: FakeLibraryProxy, env, memory_keyring: MemoryKeyring, monkeypatch, capsys) -> None:
    for name in ("SCHOLAR_LIBRARY_PROXY", "SCHOLAR_LIBRARY_PROXY_USER", "SCHOLAR_LIBRARY_PROXY_PASSWORD"):
        env.delete(name)  # only what the command kept
    assert login(monkeypatch, "correct horse") == 0
    assert "correct horse" not in capsys.readouterr().out
    kept = memory_keyring.entries
    assert kept[(KEYRING_SERVICE, PROXY_ENTRY)] == NAME and kept[(KEYRING_SERVICE, USER_ENTRY)] == "alice"
    assert json.loads(kept[(KEYRING_SERVICE, SESSION_ENTRY)])[COOKIE] in proxied.sessions
    task = run_pipeline(A)
    assert task.status == "completed" and (task.result or {})["pdf_source"] == "library_proxy"
    assert proxied.sign_ins == 1  # the command's sign-in; the read came with its session
    assert main(["library", "proxy", "logout"]) == 0
    assert not [k for k in kept if k[0] == KEYRING_SERVICE]


def test_a_refused_sign_in_exits_forbidden_and_keeps_nothing(
        proxied: FakeLibraryProxy, memory_keyring: MemoryKeyring, monkeypatch, capsys) -> None:
    assert login(monkeypatch, "wrong") == EXIT_CODES[FORBIDDEN]
    assert "refused the sign-in" in capsys.readouterr().err
    assert memory_keyring.entries == {}


def test_login_in_a_browser_takes_the_cookie_pasted_on_a_one_shot_loopback_page(
        proxied: FakeLibraryProxy, memory_keyring: MemoryKeyring) -> None:
    opened: list[str] = []
    session = proxied.session()  # as the sign-in in the browser leaves it

    def browser(url: str) -> None:
        opened.append(url)
        if url.startswith("http://127.0.0.1:"):  # the person pastes the cookie on our page, once
            def paste() -> None:
                assert httpx.get(url).status_code == 200
                httpx.post(url, data={"cookie": f"{COOKIE}={session}"})
            threading.Thread(target=paste).start()

    answer = library_proxy.login(NAME, browser=browser, timeout_s=10)
    assert answer["how"] == "browser" and opened[0] == f"https://login.{NAME}/login"
    assert json.loads(memory_keyring.entries[(KEYRING_SERVICE, SESSION_ENTRY)]) == {COOKIE: session}
    with pytest.raises(httpx.HTTPError):  # the page worked once: its server is gone
        httpx.get(opened[1], timeout=2)


def test_nothing_pasted_in_time_is_a_timeout(proxied: FakeLibraryProxy, memory_keyring: MemoryKeyring) -> None:
    with pytest.raises(ScholarError) as caught:
        library_proxy.login(NAME, browser=lambda url: None, timeout_s=0.2)
    assert caught.value.code == "timeout" and memory_keyring.entries == {}
