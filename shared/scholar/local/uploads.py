"""``scholar serve``'s upload endpoint: ``PUT /uploads/<token>`` with a PDF body (issue 38, upload_pdf locally).

The token is the one-time ticket upload_pdf handed out (``scholar.store.pdf_uploads``): it says whose pending key the
body goes to, so the request needs no other identity, and it is spent by the first request that presents it, good
body or not. A declared body over ``SCHOLAR_PDF_MAX_BYTES`` is 413 at once; an undeclared one is read only up to
the cap. Answers are JSON: ``{"ref": "upload/<token>"}`` or the error envelope.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.core.errors import InvalidArgumentError, NotFoundError, ScholarError, TooLargeError
from scholar.store.pdf_uploads import accept_upload
from scholar.web.local_pdf import check_pdf

__all__ = ["UPLOADS_PATH", "upload_app"]

UPLOADS_PATH = "/uploads/"
_STATUS = {NotFoundError: 404, TooLargeError: 413, InvalidArgumentError: 400}


async def _answer(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


async def _body(receive: Any, cap: int) -> bytes:
    """The request body, or TooLargeError as soon as more than ``cap`` bytes arrived."""
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            raise TooLargeError(f"the upload is over the cap of {cap} bytes (SCHOLAR_PDF_MAX_BYTES)")
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def upload_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """ASGI: ``PUT /uploads/<token>``; every other method 405."""
    if scope["method"] != "PUT":
        await _answer(send, 405, {"error": {"code": "invalid_argument", "message": "send the PDF with PUT"}})
        return
    cap = get_settings().pdf_max_bytes
    token = scope["path"].removeprefix(UPLOADS_PATH)
    try:
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise TooLargeError(f"the upload declares {int(declared)} bytes, over the cap of {cap}")
        check = partial(check_pdf, max_bytes=cap, field="body")
        ref = await off_loop(accept_upload, token, await _body(receive, cap), check=check)
    except ScholarError as err:
        await _answer(send, _STATUS.get(type(err), 400), err.to_envelope())
        return
    await _answer(
        send,
        200,
        {"ref": ref, "then": "pass ref to read_paper, convert_pdf_to_markdown, library_add or download_paper"},
    )
