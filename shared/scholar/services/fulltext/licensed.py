"""The publisher's version of a paper through the caller's library proxy, kept as that caller's own PDF.

Tried only after every open copy failed, and only for a caller with a proxy:

    where          whose proxy                         session
    one machine    the machine's person (``local``):   a cookie in the OS keyring (``scholar library proxy
                   SCHOLAR_LIBRARY_PROXY               login``), else a sign-in: SCHOLAR_LIBRARY_PROXY_USER and its
                                                       password (SCHOLAR_LIBRARY_PROXY_PASSWORD or the keyring)
    hosted         the caller's ``proxy`` connection   the cookie or the sign-in typed on our connect page, never
                   (sealed per principal)              through the model (scholar.store.connections)

What is proxied: the publisher's own PDF links a paper's DOI deposited with Crossref (when the resolution has them)
and the DOI itself (``https://doi.org/<doi>`` through the proxy: the proxy resolves it to the publisher and rewrites
the landing). We never fetch doi.org or the publisher ourselves on this path: every hop goes to the proxy's domain,
vetted by the SSRF guard (scholar.web.proxy_fetch). The non-obvious constraint: a PDF that came this way is licensed
to this caller alone, so it is stored as theirs (scholar.store.owned_pdfs, ``mine/<sha256>.pdf``), found again only
through their own record (``pdf:mine:<principal hash>:<id>``) and converted into a Markdown key of their own; the
shared content-addressed ``pdfs/`` and ``md/`` keys and the shared paper record never see it.
"""

from __future__ import annotations

import json
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import SecretStr

from scholar.core import redaction
from scholar.core.aio import off_loop
from scholar.core.config import LIBRARY_PROXY_ENV, LIBRARY_PROXY_USER_ENV, get_settings
from scholar.core.errors import ForbiddenError, ScholarError
from scholar.core.library_proxy import LibraryProxy, parse_proxy
from scholar.services.fulltext.models import Attempt, Candidate, PaperSummary, StoredPdf
from scholar.services.fulltext.verify import check_readable, rejected
from scholar.store.connections import ConnectionStore
from scholar.store.machine_keyring import get_entry, set_entry
from scholar.store.owned_pdfs import put_owned_pdf
from scholar.web.fetch import web_access
from scholar.web.proxy_fetch import PROXY_SESSION_EXPIRED, ProxiedPdf, ProxySignIn, fetch_via_proxy

__all__ = [
    "KEYRING_SERVICE",
    "PROXY_ENTRY",
    "SESSION_ENTRY",
    "USER_ENTRY",
    "MACHINE_PRINCIPAL",
    "PROXY_TARGET",
    "ProxyAccess",
    "licensed_pdf",
    "proxy_access",
    "save_machine_session",
]

logger = logging.getLogger(__name__)

PROXY_TARGET = "proxy"  # the connection's target (ConnectionsTable ``conn#proxy``) and its connect page
KEYRING_SERVICE = "scholar-mcp/library-proxy"
SESSION_ENTRY = "session"
PROXY_ENTRY = "proxy"
USER_ENTRY = "user"
# The machine's own caller (scholar.local.calls.LOCAL_PRINCIPAL, a floor above): a machine's proxy is one person's.
MACHINE_PRINCIPAL = "local"
DOI_URL = "https://doi.org/{doi}"
MAX_TARGETS = 2
MACHINE_HINT = (
    "Sign in to the library proxy again: scholar library proxy login (or set "
    f"{LIBRARY_PROXY_USER_ENV} and keep its password in the keyring: "
    f"keyring set {KEYRING_SERVICE} <user>)."
)
HOSTED_HINT = (
    "Connect your library proxy again on the server's page: call library_connections with connect: proxy "
    "and open the link."
)


@dataclass(frozen=True)
class ProxyAccess:
    """A caller's proxy and session: the cookies held, a sign-in to open a new one, and where they came from."""

    proxy: LibraryProxy
    cookies: dict[str, str]
    sign_in: ProxySignIn | None
    machine: bool

    @property
    def hint(self) -> str:
        return MACHINE_HINT if self.machine else HOSTED_HINT


def _cookies(stored: str | None) -> dict[str, str]:
    try:
        value = json.loads(stored) if stored else {}
    except json.JSONDecodeError:
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _machine_access() -> ProxyAccess | None:
    settings = get_settings()
    # The settings win; else what ``scholar library proxy login`` kept in the keyring.
    written = settings.library_proxy or get_entry(KEYRING_SERVICE, PROXY_ENTRY)
    if not written:
        return None
    try:
        proxy = parse_proxy(written)
    except ValueError as exc:
        raise ForbiddenError(
            f"{LIBRARY_PROXY_ENV} is not a library proxy: {exc}", source=PROXY_TARGET, reason="proxy_misconfigured"
        ) from exc
    user = settings.library_proxy_user or get_entry(KEYRING_SERVICE, USER_ENTRY)
    password = settings.secrets.values.get("library_proxy_password")
    if user and password is None and (stored := get_entry(KEYRING_SERVICE, user)):
        password = SecretStr(stored)
    sign_in = ProxySignIn(user, password) if user and password is not None else None
    return ProxyAccess(proxy, _cookies(get_entry(KEYRING_SERVICE, SESSION_ENTRY)), sign_in, machine=True)


def _hosted_access(principal: str) -> ProxyAccess | None:
    store = ConnectionStore(principal)
    found = store.connection(PROXY_TARGET)
    if found is None or found.status != "active" or not found.has_key:
        return None
    written, sealed = store.credentials(PROXY_TARGET)
    held = _cookies(sealed.get_secret_value())
    user, password = held.pop("user", None), held.pop("password", None)
    sign_in = ProxySignIn(user, SecretStr(password)) if user and password else None
    return ProxyAccess(parse_proxy(written), held, sign_in, machine=False)


def proxy_access(principal: str) -> ProxyAccess | None:
    """The caller's library proxy and session, or None for a caller without one (blocking: keyring, DynamoDB, KMS).

    Raises:
        ForbiddenError: the machine's SCHOLAR_LIBRARY_PROXY is not a proxy (``proxy_misconfigured``).
    """
    settings = get_settings()
    access = None
    if not principal:  # a step run without its task's caller: nobody's licence
        return None
    if not settings.in_lambda and principal == MACHINE_PRINCIPAL:
        access = _machine_access()
    elif settings.resources.connections_table:
        access = _hosted_access(principal)
    if access is not None:
        for secret in (*access.cookies.values(), access.sign_in.password if access.sign_in else None):
            if secret:
                redaction.remember(secret)
    return access


def save_machine_session(cookies: dict[str, str]) -> None:
    """Keep this machine's proxy session (its cookies) in the OS keyring for the next fetch."""
    set_entry(KEYRING_SERVICE, SESSION_ENTRY, json.dumps(cookies))


def _targets(metadata: PaperSummary, candidates: list[Candidate]) -> list[str]:
    publisher = [c.url for c in candidates if c.source == "publisher"]
    doi = [DOI_URL.format(doi=metadata.doi)] if metadata.doi else []
    return list(dict.fromkeys([*publisher[:1], *doi]))[:MAX_TARGETS]


def _kept(principal: str, got: ProxiedPdf, url: str) -> StoredPdf:
    """Check the PDF opens (pdfium), then store it as the caller's own (blocking)."""
    with tempfile.TemporaryDirectory(prefix="scholar-licensed-") as dest:
        path = Path(dest) / "licensed.pdf"
        path.write_bytes(got.data)
        check_readable(path)
    ref = put_owned_pdf(principal, got.data, source="library_proxy")
    return StoredPdf(
        pdf_path=ref, sha256=got.sha256, size_bytes=len(got.data), pdf_source="library_proxy", source_url=url
    )


async def licensed_pdf(
    principal: str, access: ProxyAccess, metadata: PaperSummary, candidates: list[Candidate]
) -> tuple[StoredPdf | None, list[Attempt], ScholarError | None]:
    """The paper's publisher PDF through ``access``, stored as ``principal``'s own.

    Returns:
        The stored PDF (or None), an attempt per proxied URL, and the error that ended the attempts (an expired
        session, with the hint naming where to sign in again), if any.
    """
    settings = get_settings()
    web = web_access()
    attempts: list[Attempt] = []
    last: ScholarError | None = None
    for url in _targets(metadata, candidates):
        tried = Candidate(source="library_proxy", url=url)
        try:
            got = await fetch_via_proxy(
                access.proxy,
                url,
                cookies=access.cookies,
                sign_in=access.sign_in,
                max_bytes=settings.pdf_max_bytes,
                timeout_s=settings.pdf_timeout_s,
                resolver=web.resolver,
                transport=web.transport() if web.transport else None,
                allow_hosts=settings.test_allow_hosts,
                user_agent=settings.user_agent,
            )
            stored = await off_loop(_kept, principal, got, url)
        except ScholarError as err:
            if err.reason == PROXY_SESSION_EXPIRED:
                err.hint = access.hint
                attempts.append(rejected(tried, err))
                return None, attempts, err
            attempts.append(rejected(tried, err))
            last = err
            continue
        if got.signed_in and access.machine:
            await off_loop(save_machine_session, got.cookies)
        logger.info("licensed PDF through the library proxy in %d requests", got.requests)
        attempts.append(Attempt(source="library_proxy", url=url, ok=True))
        return stored, attempts, None
    return None, attempts, last
