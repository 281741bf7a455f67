"""One data folder's stores: the tables' schemas, the database, and the clients the stores are handed.

The table names are fixed here (one folder, one deployment); their key schemas are template.yaml's (a test reads
the template and compares), so the local tables are keyed as the deployed ones are.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from scholar.core.errors import UnavailableError
from scholar.store.local.database import Database
from scholar.store.local.dynamodb import KeySchema, LocalDynamoDB
from scholar.store.local.files import ARTIFACTS_FOLDER, LocalS3
from scholar.store.local.signing_key import LocalKMS

# Resources field (scholar.core.config.Resources) → (table name, key schema of template.yaml's table).
TABLES: dict[str, tuple[str, KeySchema]] = {
    "cache_table": ("cache", KeySchema("pk")),
    "task_table": ("tasks", KeySchema("task_id", indexes={"by_principal": ("principal", "created_at")})),
    "library_table": ("library", KeySchema("pk", "sk")),
    "usage_table": ("usage", KeySchema("pk", "sk")),
    "auth_table": ("auth", KeySchema("pk", "sk")),
    "connections_table": ("connections", KeySchema("pk", "sk")),
}
BUCKET = "bucket"
SIGNING_KEY_ID = "local-signing-key"
KEYS_FOLDER = "keys"


class LocalBackend:
    """The stores of one data folder: open it, hand out clients by AWS service name, close it.

    Args:
        home: the data folder (created if absent).

    Raises:
        UnavailableError: the folder is not writable, or its database is locked or corrupt.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        # This process, on every row it writes and every execution it runs (scholar.local.machine).
        self.owner = secrets.token_hex(8)
        self.database = Database(home)
        self.dynamodb = LocalDynamoDB(self.database, dict(TABLES.values()), owner=self.owner)
        self.s3 = LocalS3(home / ARTIFACTS_FOLDER, self.database)
        self.kms = LocalKMS(home / KEYS_FOLDER)
        self._clients: dict[str, Any] = {"dynamodb": self.dynamodb, "s3": self.s3, "kms": self.kms}

    @staticmethod
    def resource_names() -> dict[str, str]:
        """Resources field → the name the stores use for it here (tables and the bucket)."""
        return {field: name for field, (name, _) in TABLES.items()} | {"artifact_bucket": BUCKET}

    def register(self, service: str, client: Any) -> None:
        """Answer ``service`` with ``client`` (the executions of scholar.runtime.local_executions)."""
        self._clients[service] = client

    def client(self, service: str) -> Any:
        """The local client for an AWS service name.

        Raises:
            UnavailableError: the service has no local stand-in (e.g. Cognito: OAuth sign-in on one machine uses
                the local provider).
        """
        found = self._clients.get(service)
        if found is None:
            raise UnavailableError(f"{service} is not available on the local backend (SCHOLAR_BACKEND=local)",
                                   retryable=False, reason="local_backend",
                                   hint="Use SCHOLAR_BACKEND=aws for what needs this AWS service.")
        return found

    def close(self) -> None:
        self.database.close()
