"""Unpaywall (api.unpaywall.org/v2): open-access status of a DOI; the API requires a contact e-mail."""

from __future__ import annotations

from typing import Any

from scholar.core.config import get_settings
from scholar.core.errors import UnavailableError
from scholar.core.urlpath import segment
from scholar.sources import http

SOURCE = "unpaywall"


async def get_doi(doi: str) -> dict[str, Any]:
    """The Unpaywall record of a DOI (``is_oa``, ``oa_status``, ``best_oa_location`` …).

    Raises:
        UnavailableError: no contact e-mail is configured (Unpaywall refuses anonymous calls).
        NotFoundError: Unpaywall has no such DOI.
    """
    email = get_settings().contact_email
    if not email:
        raise UnavailableError("Unpaywall needs SCHOLAR_CONTACT_EMAIL to be set", source=SOURCE)
    return await http.get_json(SOURCE, f"/v2/{segment(doi)}", what=f"DOI {doi}", params={"email": email})
