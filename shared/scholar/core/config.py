"""Settings from the environment (DESIGN §6): the only module that reads ``os.environ``.

Read lazily through ``get_settings()`` (cached; tests call ``get_settings.cache_clear()``), never at
import time. Secrets are ``SecretStr``: they never print, log or reach an error message.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from scholar.core.backend import current as current_backend
from scholar.core.config_parts import (
    ENV_PREFIX,
    OAuthSettings,
    Resources,
    Secrets,
    is_true,
    parse_folders,
    parse_hosts,
    parse_toolsets,
    read_secrets,
    stripped,
    without_slash,
)

UPSTREAM_PROXY_BASE_ENV = "SCHOLAR_UPSTREAM_PROXY_BASE"
READ_ONLY_ENV = "SCHOLAR_READ_ONLY"
TOOLSETS_ENV = "SCHOLAR_TOOLSETS"
# The named profile a connection lists when its URL names none (scholar.core.catalogue.PROFILES; default "default").
PROFILE_ENV = "SCHOLAR_PROFILE"
CONTACT_EMAIL_ENV = "SCHOLAR_CONTACT_EMAIL"
HOST_ENV = "SCHOLAR_HOST"
# Where the stores live (issue 32): "aws" (DynamoDB/S3, Lambda, Step Functions) or "local" (SQLite + files under
# SCHOLAR_HOME, everything in this process: scholar.local.machine). Chosen once per process; families never know.
BACKEND_ENV = "SCHOLAR_BACKEND"
HOME_ENV = "SCHOLAR_HOME"
# The API key `scholar library push/pull` sends to a hosted deployment (x-api-key) when --api-key is not given.
REMOTE_API_KEY_ENV = "SCHOLAR_REMOTE_API_KEY"
BACKENDS = ("aws", "local")
PORT_ENV = "SCHOLAR_PORT"
CACHE_TABLE_ENV = "SCHOLAR_CACHE_TABLE"
TASK_TABLE_ENV = "SCHOLAR_TASK_TABLE"
ARTIFACT_BUCKET_ENV = "SCHOLAR_ARTIFACT_BUCKET"
FUNCTION_PREFIX_ENV = "SCHOLAR_FUNCTION_PREFIX"
RETRY_STATE_MACHINE_ARN_ENV = "SCHOLAR_RETRY_STATE_MACHINE_ARN"
PDF_STATE_MACHINE_ARN_ENV = "SCHOLAR_PDF_STATE_MACHINE_ARN"
PATENT_PDF_STATE_MACHINE_ARN_ENV = "SCHOLAR_PATENT_PDF_STATE_MACHINE_ARN"
PACE_SCALE_ENV = "SCHOLAR_PACE_SCALE"
SEARCH_BUDGET_SCALE_ENV = "SCHOLAR_SEARCH_BUDGET_SCALE"
CITATION_SOURCES_ENV = "SCHOLAR_CITATION_SOURCES"
RETRY_BUDGET_ENV = "SCHOLAR_RETRY_BUDGET_S"
RETRY_WAIT_ENV = "SCHOLAR_RETRY_WAIT_S"
INLINE_WAIT_ENV = "SCHOLAR_INLINE_WAIT_S"
# Local / test-only: route family calls to in-process handlers instead of Lambda (scholar.local.dispatch).
LOCAL_DISPATCH_ENV = "SCHOLAR_LOCAL_DISPATCH"
# Test-only: hosts (host[:port]) a user-supplied URL may reach although they resolve to private
# addresses (the fake upstream on 127.0.0.1). Off by default; never set in template.yaml.
TEST_ALLOW_HOSTS_ENV = "SCHOLAR_TEST_ALLOW_HOSTS"
PDF_MAX_BYTES_ENV = "SCHOLAR_PDF_MAX_BYTES"
# The folders whose PDFs the local backend's tools may read by path (issue 38; default the home folder).
PDF_FOLDERS_ENV = "SCHOLAR_PDF_FOLDERS"
# Deployed with AuthMode=None only (template.yaml): requests without an authenticated identity share one
# principal instead of being refused with 401 (docs/security.md).
SHARED_PRINCIPAL_ENV = "SCHOLAR_SHARED_PRINCIPAL"
PDF_TIMEOUT_ENV = "SCHOLAR_PDF_TIMEOUT_S"
USAGE_TABLE_ENV = "SCHOLAR_USAGE_TABLE"
# The callers' libraries (issue 12) and each caller's limits: items, and bytes of stored records.
LIBRARY_TABLE_ENV = "SCHOLAR_LIBRARY_TABLE"
LIBRARY_MAX_ITEMS_ENV = "SCHOLAR_LIBRARY_MAX_ITEMS"
LIBRARY_MAX_BYTES_ENV = "SCHOLAR_LIBRARY_MAX_BYTES"
LIBRARY_SEARCH_BUDGET_ENV = "SCHOLAR_LIBRARY_SEARCH_BUDGET_S"
# Salt of the hashed principal in usage records and get_server_info (the stack id when deployed).
PRINCIPAL_SALT_ENV = "SCHOLAR_PRINCIPAL_SALT"
BUILD_ENV = "SCHOLAR_BUILD"
# What callers must send (the template's AuthMode: ApiKey | OAuth | None). OAuth turns on the gateway's bearer
# check (scholar.gateway.mcp.access) and, locally, the authorization server beside it (docs/deploy.md).
AUTH_MODE_ENV = "SCHOLAR_AUTH_MODE"
# OAuth (issue 21). The origin and base path the deployment is reached at (a custom domain); without it the URL
# is taken from API Gateway's request context (deployed) or from SCHOLAR_HOST/SCHOLAR_PORT (local).
PUBLIC_URL_ENV = "SCHOLAR_PUBLIC_URL"
AUTH_TABLE_ENV = "SCHOLAR_AUTH_TABLE"
# The KMS key (RSA_2048, SIGN_VERIFY) that signs access tokens: the authorization server signs, the gateway
# reads its public key once per environment.
OAUTH_SIGNING_KEY_ENV = "SCHOLAR_OAUTH_SIGNING_KEY"
OAUTH_ACCESS_TTL_ENV = "SCHOLAR_OAUTH_ACCESS_TTL_S"
OAUTH_REFRESH_TTL_ENV = "SCHOLAR_OAUTH_REFRESH_TTL_S"
# How long the gateway trusts a refresh family's status (revoked or not) before reading it again.
OAUTH_REVOCATION_CHECK_ENV = "SCHOLAR_OAUTH_REVOCATION_CHECK_S"
OAUTH_DCR_PER_HOUR_ENV = "SCHOLAR_OAUTH_DCR_PER_HOUR"
# The upstream OpenID Connect provider people sign in at: any issuer (client id + secret), or the stack's
# Cognito user pool (its app client is looked up by name: the template cannot pass its id without a cycle).
OIDC_ISSUER_ENV = "SCHOLAR_OIDC_ISSUER"
OIDC_CLIENT_ID_ENV = "SCHOLAR_OIDC_CLIENT_ID"
OIDC_COGNITO_POOL_ENV = "SCHOLAR_OIDC_COGNITO_USER_POOL"
OIDC_COGNITO_CLIENT_NAME_ENV = "SCHOLAR_OIDC_COGNITO_CLIENT_NAME"
# The usage plan whose API keys stay valid for header clients in OAuth mode (the gateway checks them itself).
API_USAGE_PLAN_ENV = "SCHOLAR_API_USAGE_PLAN_ID"
# Test-only: a PEM bundle the guarded fetches (client metadata documents) trust besides the system's, for a
# loopback HTTPS server made in a test. Off by default; never set in template.yaml.
TEST_CA_FILE_ENV = "SCHOLAR_TEST_CA_FILE"
RERANK_MODEL_ENV = "SCHOLAR_RERANK_MODEL"
# The Zotero connector (issue 30). On one machine the library (``users/<id>`` | ``groups/<id>``) and its key
# (SCHOLAR_ZOTERO_API_KEY, a secret) come from here or the OS keyring; hosted, from the ConnectionsTable, where
# the key is encrypted with the KMS key SCHOLAR_CONNECTIONS_KEY.
ZOTERO_LIBRARY_ENV = "SCHOLAR_ZOTERO_LIBRARY"
CONNECTIONS_TABLE_ENV = "SCHOLAR_CONNECTIONS_TABLE"
CONNECTIONS_KEY_ENV = "SCHOLAR_CONNECTIONS_KEY"
# The file targets on one machine: the folder of the .bib files (one per collection) and the Obsidian vault
# folder (one subfolder per collection). Hosted, both come back as a download link instead.
BIBTEX_DIR_ENV = "SCHOLAR_BIBTEX_DIR"
OBSIDIAN_VAULT_ENV = "SCHOLAR_OBSIDIAN_VAULT"
# The Notion connector: the database library_sync keeps in step on one machine (its token: SCHOLAR_NOTION_TOKEN).
NOTION_DATABASE_ENV = "SCHOLAR_NOTION_DATABASE"
# The library proxy for licensed full text on one machine (issue 38): an EZproxy-style prefix with {url} or a
# proxy-by-hostname suffix, and the sign-in name (its password: SCHOLAR_LIBRARY_PROXY_PASSWORD or the OS keyring).
LIBRARY_PROXY_ENV = "SCHOLAR_LIBRARY_PROXY"
LIBRARY_PROXY_USER_ENV = "SCHOLAR_LIBRARY_PROXY_USER"
# What a Zotero library and a Notion database id look like (here and on the hosted connect page).
ZOTERO_LIBRARY_PATTERN = r"^(users|groups)/[0-9]{1,12}$"
NOTION_DATABASE_PATTERN = r"^[0-9a-f]{8}(?:-?[0-9a-f]{4}){3}-?[0-9a-f]{12}$"
# Tracing (Powertools' rule): on inside a Lambda execution environment unless POWERTOOLS_TRACE_DISABLED
# or SAM local; off elsewhere, so the X-Ray SDK (~0.25 s of import) is never loaded where it cannot trace.
TRACE_DISABLED_ENV = "POWERTOOLS_TRACE_DISABLED"
LAMBDA_TASK_ROOT_ENV = "LAMBDA_TASK_ROOT"
SAM_LOCAL_ENV = "AWS_SAM_LOCAL"

# Secrets: the value itself (local) or the name of an SSM parameter holding it (deployed).
# What every request of ours says it is (sources, PDF downloads, the sign-in provider, client metadata documents).
PRODUCT_AGENT = "scholar-mcp-lambda/0.1"


class Settings(BaseModel):
    contact_email: str | None = None
    backend: Literal["aws", "local"] = "aws"
    # The local backend's data folder (tables in scholar.sqlite3, artifacts as files): SCHOLAR_HOME, else the
    # platform's user data folder (``default_home``; None here, so a Lambda never computes it).
    home: Path | None = None
    read_only: bool = False
    toolsets: frozenset[str] | None = None
    profile: str | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=3000, ge=1, le=65535)
    upstream_proxy_base: str | None = None
    source_urls: dict[str, str] = Field(default_factory=dict)
    docling_url: str | None = None
    # Tesseract's languages for scanned pages (scholar.services.pdftext.ocr): "eng", "deu+eng"; None reads no scan.
    ocr_languages: str | None = Field(default="eng", pattern=r"^[a-z_]{3,16}(\+[a-z_]{3,16}){0,7}$")
    vlm_api_url: str | None = None
    vlm_model: str | None = None
    # The optional remote reranker of research search: its URL is SCHOLAR_RERANK_URL (source "rerank").
    rerank_model: str | None = None
    # Multiplies every source's pace interval; 0 turns pacing off (tests against the fake upstream).
    pace_scale: float = Field(default=1.0, ge=0)
    # Multiplies research search's time budgets (per source, and the answer's deadline); tests on a loaded
    # machine give a slow fake upstream more time, the deployed server keeps 1.
    search_budget_scale: float = Field(default=1.0, gt=0)
    # The sources the citation graph reads (scholar.services.citation_graph); None: all of them.
    citation_sources: frozenset[str] | None = None
    # How long one call may spend retrying 429/5xx before it reports (or queues) the failure.
    retry_budget_s: float = Field(default=8.0, ge=0)
    # First wait of the retry state machine for a queued, rate-limited call.
    retry_wait_s: int = Field(default=5, ge=0)
    # How long a call that queued its work waits for it in-line (answering the result, not "queued"); 0: never.
    inline_wait_s: float = Field(default=3.0, ge=0, le=20)
    local_dispatch: bool = False
    test_allow_hosts: frozenset[str] = frozenset()
    pdf_max_bytes: int = Field(default=50 * 1024 * 1024, ge=1024)
    pdf_folders: tuple[Path, ...] = ()  # empty: the home folder (scholar.web.local_pdf)
    pdf_timeout_s: float = Field(default=60.0, gt=0)
    shared_principal: bool = False
    # Empty locally (an x-api-key header is optional and only names the caller).
    auth_mode: str = ""
    secrets: Secrets = Field(default_factory=Secrets)
    resources: Resources = Field(default_factory=Resources)
    principal_salt: str = "scholar-local"
    # What was deployed (a commit or build label); "dev" for a working tree.
    build: str = "dev"
    tracing: bool = False
    library_max_items: int = Field(default=10_000, ge=1)
    library_max_bytes: int = Field(default=100 * 1024 * 1024, ge=1024)
    # How long one library_search may spend bringing the caller's index up to date and searching it; indexing
    # left over resumes on the next call (the answer meanwhile is a retryable timeout).
    library_search_budget_s: float = Field(default=10.0, gt=0)
    oauth: OAuthSettings = Field(default_factory=OAuthSettings)
    zotero_library: str | None = Field(default=None, pattern=ZOTERO_LIBRARY_PATTERN)
    bibtex_dir: str | None = None
    obsidian_vault: str | None = None
    notion_database: str | None = Field(default=None, pattern=NOTION_DATABASE_PATTERN)
    library_proxy: str | None = None
    library_proxy_user: str | None = None
    # Inside a Lambda execution environment (LAMBDA_TASK_ROOT): what only the local stack may do is off.
    in_lambda: bool = False

    @property
    def user_agent(self) -> str:
        """Our User-Agent: the product, and the contact email when one is set (polite pools ask for it)."""
        return f"{PRODUCT_AGENT} (mailto:{self.contact_email})" if self.contact_email else PRODUCT_AGENT


# field → (the variable that sets it, how its text reads). A variable unset or empty leaves the model's default.
Readings = dict[str, tuple[str, Callable[[str], Any]]]


def _backend(value: str) -> str:
    backend = value.strip().lower()
    if backend not in BACKENDS:
        raise ValueError(f"{BACKEND_ENV} must be one of {', '.join(BACKENDS)} (got {backend!r})")
    return backend


def _folder(value: str) -> Path:
    return Path(value).expanduser()


def _languages(value: str) -> str | None:
    return None if value.strip().lower() in {"off", "none", "no", "false", "0"} else value.strip()


def _library_path(value: str) -> str | None:
    return value.strip().strip("/") or None


_SETTINGS: Readings = {
    "contact_email": (CONTACT_EMAIL_ENV, str),
    "backend": (BACKEND_ENV, _backend),
    "home": (HOME_ENV, _folder),
    "read_only": (READ_ONLY_ENV, is_true),
    "toolsets": (TOOLSETS_ENV, parse_toolsets),
    "profile": (PROFILE_ENV, stripped),
    "host": (HOST_ENV, str),
    "port": (PORT_ENV, int),
    "upstream_proxy_base": (UPSTREAM_PROXY_BASE_ENV, str),
    "docling_url": ("SCHOLAR_DOCLING_URL", str),
    "ocr_languages": ("SCHOLAR_OCR_LANGUAGES", _languages),
    "vlm_api_url": ("SCHOLAR_VLM_API_URL", str),
    "vlm_model": ("SCHOLAR_VLM_MODEL", str),
    "rerank_model": (RERANK_MODEL_ENV, str),
    "pace_scale": (PACE_SCALE_ENV, float),
    "search_budget_scale": (SEARCH_BUDGET_SCALE_ENV, float),
    "citation_sources": (CITATION_SOURCES_ENV, parse_toolsets),
    "retry_budget_s": (RETRY_BUDGET_ENV, float),
    "retry_wait_s": (RETRY_WAIT_ENV, int),
    "inline_wait_s": (INLINE_WAIT_ENV, float),
    "local_dispatch": (LOCAL_DISPATCH_ENV, is_true),
    "test_allow_hosts": (TEST_ALLOW_HOSTS_ENV, parse_hosts),
    "pdf_max_bytes": (PDF_MAX_BYTES_ENV, int),
    "pdf_folders": (PDF_FOLDERS_ENV, parse_folders),
    "pdf_timeout_s": (PDF_TIMEOUT_ENV, float),
    "shared_principal": (SHARED_PRINCIPAL_ENV, is_true),
    "auth_mode": (AUTH_MODE_ENV, str),
    "principal_salt": (PRINCIPAL_SALT_ENV, str),
    "build": (BUILD_ENV, str),
    "library_max_items": (LIBRARY_MAX_ITEMS_ENV, int),
    "library_max_bytes": (LIBRARY_MAX_BYTES_ENV, int),
    "library_search_budget_s": (LIBRARY_SEARCH_BUDGET_ENV, float),
    "zotero_library": (ZOTERO_LIBRARY_ENV, _library_path),
    "bibtex_dir": (BIBTEX_DIR_ENV, str),
    "obsidian_vault": (OBSIDIAN_VAULT_ENV, str),
    "notion_database": (NOTION_DATABASE_ENV, str),
    "library_proxy": (LIBRARY_PROXY_ENV, stripped),
    "library_proxy_user": (LIBRARY_PROXY_USER_ENV, stripped),
}
_RESOURCES: Readings = {
    "cache_table": (CACHE_TABLE_ENV, str),
    "task_table": (TASK_TABLE_ENV, str),
    "artifact_bucket": (ARTIFACT_BUCKET_ENV, str),
    "function_prefix": (FUNCTION_PREFIX_ENV, str),
    "retry_state_machine_arn": (RETRY_STATE_MACHINE_ARN_ENV, str),
    "pdf_state_machine_arn": (PDF_STATE_MACHINE_ARN_ENV, str),
    "usage_table": (USAGE_TABLE_ENV, str),
    "patent_pdf_state_machine_arn": (PATENT_PDF_STATE_MACHINE_ARN_ENV, str),
    "library_table": (LIBRARY_TABLE_ENV, str),
    "auth_table": (AUTH_TABLE_ENV, str),
    "connections_table": (CONNECTIONS_TABLE_ENV, str),
    "connections_key": (CONNECTIONS_KEY_ENV, str),
}
_OAUTH: Readings = {
    "public_url": (PUBLIC_URL_ENV, without_slash),
    "signing_key": (OAUTH_SIGNING_KEY_ENV, str),
    "access_ttl_s": (OAUTH_ACCESS_TTL_ENV, int),
    "refresh_ttl_s": (OAUTH_REFRESH_TTL_ENV, int),
    "revocation_check_s": (OAUTH_REVOCATION_CHECK_ENV, float),
    "dcr_per_hour": (OAUTH_DCR_PER_HOUR_ENV, int),
    "oidc_issuer": (OIDC_ISSUER_ENV, without_slash),
    "oidc_client_id": (OIDC_CLIENT_ID_ENV, str),
    "cognito_user_pool": (OIDC_COGNITO_POOL_ENV, str),
    "cognito_client_name": (OIDC_COGNITO_CLIENT_NAME_ENV, str),
    "api_usage_plan": (API_USAGE_PLAN_ENV, str),
    "test_ca_file": (TEST_CA_FILE_ENV, str),
}


def _given(env: Mapping[str, str], table: Readings) -> dict[str, Any]:
    """The fields ``env`` sets, read; the others are left to the model's defaults."""
    return {field: read(env[name]) for field, (name, read) in table.items() if env.get(name)}


def load_settings(env: Mapping[str, str]) -> Settings:
    """Build settings from an environment mapping (pure; ``get_settings`` passes ``os.environ``).

    Only what the environment sets is read; every default is the model's own.
    """
    in_lambda = bool(env.get(LAMBDA_TASK_ROOT_ENV))
    # Every SCHOLAR_<NAME>_URL, by lower-case name: the registry decides which names are sources.
    source_urls = {
        name[len(ENV_PREFIX) : -len("_URL")].lower(): value
        for name, value in env.items()
        if name.startswith(ENV_PREFIX) and name.endswith("_URL") and len(name) > len(ENV_PREFIX) + 4 and value
    }
    return Settings(
        **_given(env, _SETTINGS),
        source_urls=source_urls,
        secrets=read_secrets(env),
        resources=Resources(**_given(env, _RESOURCES)),
        oauth=OAuthSettings(**_given(env, _OAUTH)),
        in_lambda=in_lambda,
        tracing=in_lambda and not env.get(SAM_LOCAL_ENV) and not is_true(env.get(TRACE_DISABLED_ENV) or ""),
    )


def default_home() -> Path:
    """The platform's user data folder for Scholar (``~/.local/share/scholar`` on Linux): SCHOLAR_HOME's default."""
    from platformdirs import user_data_dir  # noqa: PLC0415  # only the local backend needs it

    return Path(user_data_dir("scholar", appauthor=False))


class _SettingsOfBackend:
    """``get_settings()``: the current backend's settings (scholar.core.backend: the process environment with the
    backend's own values over it), read once per backend; ``get_settings.cache_clear()`` has every backend re-read."""

    def __init__(self) -> None:
        self._generation = 0

    def __call__(self) -> Settings:
        backend, generation = current_backend(), self._generation
        if backend.settings_cache is None or backend.settings_cache[0] != generation:
            backend.settings_cache = (generation, load_settings({**os.environ, **backend.environ}))
        return backend.settings_cache[1]

    def cache_clear(self) -> None:
        self._generation += 1


get_settings = _SettingsOfBackend()


def get_environ(name: str) -> str | None:
    """One variable of this process as it is now (for an entry point that sets it for a while and puts it back)."""
    return os.environ.get(name)


def set_environment(values: Mapping[str, str | None]) -> None:
    """Set (or, for ``None``, remove) variables of this process and re-read the settings.

    For entry points that turn their own options into settings (``scholar mcp --profile``): the child processes
    they start and the families they run in-process then see the same values.
    """
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    get_settings.cache_clear()
