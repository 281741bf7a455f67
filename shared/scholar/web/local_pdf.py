"""A PDF on this machine named by a caller: the guard before any of its bytes are read (issue 38, docs/security.md).

The form (an absolute path, ``~/…``, or ``file://`` with no host or ``localhost``, percent-decoded) is expanded, then
*resolved* (every symlink followed, ``..`` gone) and only then checked against the allowed folders
(``SCHOLAR_PDF_FOLDERS``, default the home folder), themselves resolved: a link inside an allowed folder that points
out of it is refused, as is ``~/../other``. Then the size cap (``SCHOLAR_PDF_MAX_BYTES``) and the PDF magic. Only the
local backend outside a Lambda reads paths (``paths_allowed``); a deployment never reads a server path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from scholar.core.config import PDF_FOLDERS_ENV, PDF_MAX_BYTES_ENV, Settings
from scholar.core.errors import ForbiddenError, InvalidArgumentError, NotFoundError, TooLargeError
from scholar.web.download import is_pdf

__all__ = ["LocalPdf", "allowed_folders", "check_pdf", "is_local_path", "paths_allowed", "read_local_pdf"]

OUTSIDE_FOLDERS = "outside_pdf_folders"
_LOCAL_FORM = re.compile(r"^(?:/|~(?:/|$)|file://)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LocalPdf:
    """The bytes of a vetted local PDF and the resolved path they came from."""

    path: Path
    data: bytes


def is_local_path(raw: str) -> bool:
    """Whether ``raw`` is written as a path on this machine (absolute, ``~``, ``file://``)."""
    return bool(_LOCAL_FORM.match(raw.strip()))


def paths_allowed(settings: Settings) -> bool:
    """Paths are read only on the local backend, never inside a Lambda (a deployment has no caller's disk)."""
    return settings.backend == "local" and not settings.in_lambda


def allowed_folders(settings: Settings) -> tuple[Path, ...]:
    """The allowed folders, resolved (``SCHOLAR_PDF_FOLDERS``; the home folder when unset)."""
    return tuple(folder.expanduser().resolve() for folder in (settings.pdf_folders or (Path.home(),)))


def _expanded(raw: str, field: str) -> Path:
    text = raw.strip()
    if text.lower().startswith("file://"):
        parts = urlsplit(text)
        if parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
            raise InvalidArgumentError(
                f"{field}: a file:// URL must name a file on this machine (file:///path)", field=field
            )
        text = unquote(parts.path)
    if "\x00" in text:
        raise InvalidArgumentError(f"{field}: a path holds no NUL character", field=field)
    path = Path(text).expanduser()
    if not path.is_absolute():
        raise InvalidArgumentError(f"{field}: give an absolute path, ~/… or file:///…", field=field)
    return path


def read_local_pdf(raw: str, settings: Settings, *, field: str = "identifier") -> LocalPdf:
    """Read the PDF a caller named by path, after the checks in the module docstring.

    Raises:
        ForbiddenError: not the local backend, or the resolved path is outside every allowed folder.
        InvalidArgumentError: not an absolute path / local file URL, or the file is not a PDF.
        NotFoundError: no such file.
        TooLargeError: over ``SCHOLAR_PDF_MAX_BYTES``.
    """
    if not paths_allowed(settings):
        raise ForbiddenError(
            f"{field}: this server reads no file paths; upload the PDF with upload_pdf",
            hint="Call upload_pdf, send the file to its upload_url, then pass the ref it gives.",
        )
    path = _expanded(raw, field).resolve()  # symlinks and .. resolved before the containment check
    folders = allowed_folders(settings)
    if not any(path.is_relative_to(folder) for folder in folders):
        raise ForbiddenError(
            f"{field}: {raw.strip()[:200]!r} is outside the folders {PDF_FOLDERS_ENV} allows",
            reason=OUTSIDE_FOLDERS,
            hint=f"Move the PDF into {', '.join(map(str, folders))} or add its folder to "
            f"{PDF_FOLDERS_ENV} (separated by {os.pathsep!r} or commas).",
        )
    if not path.is_file():
        raise NotFoundError(f"{field}: no file {str(path)[:200]!r}", hint="Check the path.")
    with path.open("rb") as source:
        data = source.read(settings.pdf_max_bytes + 1)  # never more than one byte past the cap
    check_pdf(data, settings.pdf_max_bytes, field=field)
    return LocalPdf(path=path, data=data)


def check_pdf(data: bytes, max_bytes: int, *, field: str = "identifier") -> None:
    """Refuse bytes a caller brought that are over the cap or not a PDF (the download guard's magic test).

    Raises:
        TooLargeError: over ``max_bytes`` (``SCHOLAR_PDF_MAX_BYTES``).
        InvalidArgumentError: no ``%PDF-`` header within the first 1024 bytes (or markup before it).
    """
    if len(data) > max_bytes:
        raise TooLargeError(f"{field}: the PDF is over {PDF_MAX_BYTES_ENV}={max_bytes} bytes")
    if not is_pdf(data):
        raise InvalidArgumentError(f"{field}: this is not a PDF (no %PDF- header)", field=field)
