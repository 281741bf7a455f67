"""Pieces of the settings (scholar.core.config): secrets, AWS resource names, OAuth, how a variable reads.

Pure: nothing here reads the environment; ``config.load_settings`` passes the mapping in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, Field, SecretStr

ENV_PREFIX = "SCHOLAR_"

SECRET_NAMES = (
    "S2_API_KEY",
    "OPENALEX_API_KEY",
    "GOOGLE_BOOKS_API_KEY",
    "EPO_CONSUMER_KEY",
    "EPO_CONSUMER_SECRET",
    "VLM_API_KEY",
    "RERANK_API_KEY",
    "OIDC_CLIENT_SECRET",
    "ZOTERO_API_KEY",
    "NOTION_TOKEN",
    "LIBRARY_PROXY_PASSWORD",
)

_TRUE = {"1", "true", "yes", "on"}
_SECRET_FIELDS = frozenset(name.lower() for name in SECRET_NAMES)


class Secrets(BaseModel):
    """Secret values (``SecretStr``) set in the environment, and the SSM parameters that hold the others.

    Settings do no I/O: ``has(name)`` says whether a secret is configured without fetching it (the gateway
    hides tools by it and has no access to the parameters); reading one is
    ``scholar.store.secrets.get_secret(name)``, which fetches an SSM-held value. ``get(name)`` (and the
    attribute, ``secrets.s2_api_key``) answers only for a value set in the environment.
    """

    values: dict[str, SecretStr] = Field(default_factory=dict)
    parameters: dict[str, str] = Field(default_factory=dict)

    def has(self, name: str) -> bool:
        return name in self.values or name in self.parameters

    def get(self, name: str) -> SecretStr | None:
        """The value set in the environment, or None when the secret is not configured.

        Raises:
            LookupError: the secret is held in an SSM parameter (read it with ``scholar.store.secrets.get_secret``).
        """
        if name in self.parameters and name not in self.values:
            raise LookupError(f"the secret {name} is held in SSM: read it with scholar.store.secrets.get_secret")
        return self.values.get(name)

    def __getattr__(self, name: str) -> SecretStr | None:
        if name.lower() in _SECRET_FIELDS:
            return self.get(name)
        return super().__getattr__(name)  # type: ignore[misc]  # pydantic's own attribute lookup


class Resources(BaseModel):
    """Names of the AWS resources template.yaml creates (set by SAM, or by the local stack)."""

    cache_table: str | None = None
    task_table: str | None = None
    artifact_bucket: str | None = None
    function_prefix: str = "scholar-"
    retry_state_machine_arn: str | None = None
    pdf_state_machine_arn: str | None = None
    usage_table: str | None = None
    patent_pdf_state_machine_arn: str | None = None
    library_table: str | None = None
    auth_table: str | None = None  # AuthMode=OAuth only (scholar.store.auth)
    connections_table: str | None = None  # connector links and hosted keys (scholar.store.connections)
    connections_key: str | None = None  # the KMS key that encrypts hosted connector keys


class OAuthSettings(BaseModel):
    """The authorization server and the gateway's bearer check (AuthMode=OAuth; docs/security.md)."""

    public_url: str | None = None
    signing_key: str | None = None
    # Access tokens are JWTs checked offline: short-lived, and refused early through their family's status.
    access_ttl_s: int = Field(default=900, ge=60, le=3600)
    refresh_ttl_s: int = Field(default=30 * 86400, ge=3600, le=90 * 86400)
    revocation_check_s: float = Field(default=30.0, ge=0, le=300)
    dcr_per_hour: int = Field(default=20, ge=1)
    oidc_issuer: str | None = None
    oidc_client_id: str | None = None
    cognito_user_pool: str | None = None
    cognito_client_name: str | None = None
    api_usage_plan: str | None = None
    test_ca_file: str | None = None


def read_secrets(env: Mapping[str, str]) -> Secrets:
    """``SCHOLAR_<NAME>`` holds the value (local); ``SCHOLAR_<NAME>_PARAM`` names its SSM parameter (deployed)."""
    values = {n.lower(): SecretStr(env[f"{ENV_PREFIX}{n}"]) for n in SECRET_NAMES if env.get(f"{ENV_PREFIX}{n}")}
    parameters = {
        n.lower(): env[f"{ENV_PREFIX}{n}_PARAM"]
        for n in SECRET_NAMES
        if env.get(f"{ENV_PREFIX}{n}_PARAM") and n.lower() not in values
    }
    return Secrets(values=values, parameters=parameters)


def comma_separated(raw: str | None) -> frozenset[str]:
    """The items of a comma-separated setting or query value, stripped, empty ones dropped."""
    return frozenset(part.strip() for part in (raw or "").split(",") if part.strip())


def parse_folders(raw: str) -> tuple[Path, ...]:
    """A folder list (``SCHOLAR_PDF_FOLDERS``): separated by the OS path separator or commas, ``~`` expanded."""
    parts = (part.strip() for chunk in raw.split(os.pathsep) for part in chunk.split(","))
    return tuple(Path(part).expanduser() for part in parts if part)


def parse_hosts(raw: str | None) -> frozenset[str]:
    """A ``host[:port]`` list (``SCHOLAR_TEST_ALLOW_HOSTS``), lower-cased as host names compare."""
    return frozenset(host.lower() for host in comma_separated(raw))


def parse_toolsets(raw: str | None) -> frozenset[str] | None:
    """A toolsets list (``SCHOLAR_TOOLSETS``, ``?toolsets=``); None when the value is absent or empty."""
    return comma_separated(raw) if raw else None


def is_true(raw: str) -> bool:
    return raw.strip().lower() in _TRUE


def stripped(raw: str) -> str | None:
    return raw.strip() or None


def without_slash(raw: str) -> str | None:
    return raw.rstrip("/") or None
