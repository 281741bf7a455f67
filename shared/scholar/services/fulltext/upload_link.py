"""upload_pdf's answer: a one-time link that puts a PDF among the caller's own (issue 38).

Hosted, an S3 presigned POST to the caller's pending key: its policy's ``content-length-range`` has S3 refuse a body
over ``SCHOLAR_PDF_MAX_BYTES`` (a presigned PUT cannot cap a size it did not sign), and it expires in 15 minutes.
On one machine, ``scholar serve``'s ``PUT /uploads/<token>`` (a one-time ticket, the same cap). Over stdio no server
runs: the answer says to give the file's path, which is how a PDF on this machine reaches the tools there. Either
way the first tool that uses ``upload/<token>`` checks the bytes (size, PDF magic) and makes them the caller's own.
Blocking (S3 / files): the family runs it off the loop.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from scholar.core.config import Settings
from scholar.core.errors import UnavailableError
from scholar.store.blobs import BlobStore
from scholar.store.pdf_uploads import new_upload, upload_base

__all__ = ["EXPIRES_S", "NO_SERVER", "upload_link"]

EXPIRES_S = 900
NO_SERVER = "no_upload_server"
THEN = "Send the file, then pass ref to read_paper, convert_pdf_to_markdown, library_add or download_paper."


def upload_link(principal: str, settings: Settings) -> dict[str, Any]:
    """The fields of upload_pdf's answer for this caller.

    Raises:
        UnavailableError: reason ``no_upload_server``: the local backend with no HTTP server (stdio).
    """
    expires_at = (datetime.now(UTC) + timedelta(seconds=EXPIRES_S)).strftime("%Y-%m-%dT%H:%M:%SZ")
    cap = settings.pdf_max_bytes
    if settings.backend == "local":
        base = upload_base()
        if base is None:
            raise UnavailableError(
                "no upload server runs here (stdio): give the PDF's path instead",
                reason=NO_SERVER,
                hint="Pass the file's path (/…, ~/…, file://…) to read_paper, "
                "convert_pdf_to_markdown, library_add or download_paper.",
            )
        pending = new_upload(principal, expires_s=EXPIRES_S, ticket=True)
        url = f"{base}/uploads/{pending.token}"
        headers = {"Content-Type": "application/pdf"}
        return {
            "ref": pending.ref,
            "upload_url": url,
            "method": "PUT",
            "headers": headers,
            "max_bytes": cap,
            "expires_at": expires_at,
            "then": THEN,
            "example": f"curl -X PUT -H 'Content-Type: application/pdf' --data-binary @paper.pdf {url}",
        }
    pending = new_upload(principal, expires_s=EXPIRES_S, ticket=False)
    url, fields = BlobStore().presign_upload(pending.key, max_bytes=cap, expires_s=EXPIRES_S)
    form = " ".join(f"-F '{name}={value}'" for name, value in fields.items())
    return {
        "ref": pending.ref,
        "upload_url": url,
        "method": "POST",
        "fields": fields,
        "max_bytes": cap,
        "expires_at": expires_at,
        "then": THEN,
        "example": f"curl {form} -F file=@paper.pdf {url}",
    }
