"""``scholar serve``'s upload endpoint (scholar.local.uploads) over httpx's ASGI transport, on a local backend.

The happy path and the second use of a link run through the real server in tests/e2e/isolated/test_own_pdfs_e2e.py;
here each refusal answers its status before anything is stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from scholar.local.machine import local_backend
from scholar.local.uploads import upload_app
from scholar.store.pdf_uploads import claim_upload, new_upload

PDF = b"%PDF-1.7 synthetic bytes of an upload"
ALICE = "key:alice"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SCHOLAR_PDF_MAX_BYTES", "2048")
    with local_backend(tmp_path / "home"):
        yield tmp_path / "home"


def _put(token: str, body: bytes, method: str = "PUT") -> httpx.Response:
    async def main() -> httpx.Response:
        transport = httpx.ASGITransport(app=upload_app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.request(method, f"/uploads/{token}", content=body)

    return anyio.run(main)


def test_a_pdf_put_once_is_claimed_by_its_uploader(home):
    pending = new_upload(ALICE, expires_s=60, ticket=True)

    answer = _put(pending.token, PDF)
    assert (answer.status_code, answer.json()["ref"]) == (200, pending.ref)
    assert claim_upload(ALICE, pending.ref, check=lambda data: None).startswith("mine/")
    assert _put(pending.token, PDF).status_code == 404


def test_refusals_answer_their_status(home):
    assert _put("x" * 32, PDF).status_code == 404
    assert _put(new_upload(ALICE, expires_s=60, ticket=True).token, PDF, method="POST").status_code == 405
    too_big = _put(new_upload(ALICE, expires_s=60, ticket=True).token, PDF + b"0" * 4096)
    assert (too_big.status_code, too_big.json()["error"]["code"]) == (413, "too_large")
    not_pdf = _put(new_upload(ALICE, expires_s=60, ticket=True).token, b"GIF89a")
    assert (not_pdf.status_code, not_pdf.json()["error"]["code"]) == (400, "invalid_argument")
