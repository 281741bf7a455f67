"""The ConnectionsTable: a caller's connector connections and what each sync remembers of the other side.

``pk = <principal>`` always (no read or write reaches another caller's rows), sort keys:

    conn#<target>                          a connection: library, status, the key encrypted with KMS (hosted)
    link#<target>#<library>#<item_id>      the Zotero item (and child note / attachment) or Notion page one of our
                                           items maps to, with the versions and the digest of what was last written
                                           or read
    coll#<target>#<library>#<name>         the Zotero collection one of our collections maps to

and, in a partition of its own, ``pk = connect#<sha256(token)>``: a one-time connect link (the principal it was
issued to, the target it connects, its expiry), taken by a conditional delete that names the target, so it works
once and only on its own target's page.

The non-obvious constraint: a key is stored only as KMS ciphertext whose encryption context names the principal,
so a ciphertext copied into another caller's row does not decrypt; it is decrypted only to make a request and
never returned by a listing. On one machine no key is stored here (it comes from the environment or the OS
keyring: scholar.services.connectors.credentials); the links and collections are kept all the same.
Revoking is a conditional write (active → revoked), so a sync that read the connection before the revoke
cannot bring it back.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from typing import Any, Literal

from botocore.exceptions import ClientError
from pydantic import BaseModel, Field, SecretStr

from scholar.core.config import CONNECTIONS_TABLE_ENV, get_settings
from scholar.core.errors import ForbiddenError, UnavailableError
from scholar.store import aws
from scholar.store.base import Store, awaitable, token_hash
from scholar.store.boundary import boto_errors, error_code

__all__ = ["Connection", "ConnectionStore", "Link", "connect_path"]

CONDITION_FAILED = "ConditionalCheckFailedException"
# A connect link works once, for ten minutes; the page it opens (scholar.gateway.auth.connect).
CONNECT_LINK_TTL_S = 600
_BATCH_WRITE = 25


class Connection(BaseModel):
    """A caller's connection to a target library, as listed (never the key)."""

    target: str
    library: str
    status: Literal["active", "revoked"] = "active"
    created_at: int
    has_key: bool = False
    last_sync_at: int | None = Field(default=None, description="When a sync with it last ended (epoch seconds)")
    last_direction: Literal["push", "pull"] | None = None


class Link(BaseModel):
    """One of our items on the other side: its key and version there, and the digest of what we last agreed on."""

    item_id: str
    key: str
    version: int
    digest: str
    # The child note (our notes) and the PDF attachment item, once written.
    note_key: str | None = None
    note_version: int | None = None
    note_digest: str | None = None
    attachment_key: str | None = Field(default=None, description="The attachment item holding the kept PDF")
    attachment_md5: str | None = Field(default=None, description="MD5 of the file uploaded to it (Zotero's identity)")
    # Notion: the digest of the page's fields as read back when we last agreed (a target that rewrites what it is
    # sent, tags and links, reads back otherwise than we wrote), and when we last synced (epoch ms, our clock).
    seen_digest: str | None = None
    synced_at: int | None = None


def connect_path(target: str) -> str:
    """The path of ``target``'s connect page (below the deployment's base URL)."""
    return f"/connect/{target}"


def _key(principal: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": principal}, "sk": {"S": sk}}


class ConnectionStore(Store):
    """One caller's connections and links (``Store``: table and client resolution)."""

    RESOURCE = "connections_table"
    ENV = CONNECTIONS_TABLE_ENV
    NOUN = "connections table"

    def __init__(self, principal: str, table: str | None = None, *, client: Any = None, kms: Any = None) -> None:
        super().__init__(table, client)
        self.principal = principal
        self._kms = kms

    @property
    def table(self) -> str:
        return self._required()

    @property
    def kms(self) -> Any:
        return self._kms or aws.client("kms")

    def _context(self) -> dict[str, str]:
        return {"principal": self.principal, "purpose": "scholar-connector"}

    # ------------------------------------------------------------------ connections
    def connect(self, target: str, library: str, key: SecretStr | None) -> Connection:
        """Store (or replace) the caller's connection; a key is encrypted with the configured KMS key.

        Raises:
            UnavailableError: a key was given but no KMS key is configured (it is never stored in clear).
        """
        row = {**_key(self.principal, f"conn#{target}"), "library": {"S": library}, "status": {"S": "active"},
               "created_at": {"N": str(int(time.time()))}}
        if key is not None:
            key_id = get_settings().resources.connections_key
            if not key_id:
                raise UnavailableError("no KMS key is configured for connector keys (SCHOLAR_CONNECTIONS_KEY)")
            with boto_errors("encrypting a connector key"):
                blob = self.kms.encrypt(KeyId=key_id, Plaintext=key.get_secret_value().encode(),
                                        EncryptionContext=self._context())["CiphertextBlob"]
            row["sealed"] = {"B": blob}
        with boto_errors("storing a connection"):
            self.client.put_item(TableName=self.table, Item=row)
        return _connection(row)

    def connection(self, target: str) -> Connection | None:
        with boto_errors("reading a connection"):
            row = self.client.get_item(TableName=self.table, Key=_key(self.principal, f"conn#{target}"),
                                       ConsistentRead=True).get("Item")
        return _connection(row) if row else None

    def connections(self) -> list[Connection]:
        return [_connection(row) for row in self._query("conn#")]

    def credentials(self, target: str) -> tuple[str, SecretStr]:
        """The caller's library and key for ``target``, the key decrypted for one sync.

        Raises:
            ForbiddenError: no connection, a revoked one, or one without a key.
        """
        with boto_errors("reading a connection"):
            row = self.client.get_item(TableName=self.table, Key=_key(self.principal, f"conn#{target}"),
                                       ConsistentRead=True).get("Item")
        if not row or row["status"]["S"] != "active" or "sealed" not in row:
            state = "revoked" if row and row["status"]["S"] == "revoked" else "missing"
            raise ForbiddenError(f"no active {target} connection for this caller ({state})", source=target,
                                 reason=f"connection_{state}",
                                 hint=f"Connect it on the server's connect page (library_connections with "
                                      f"connect: {target}), then sync again.")
        with boto_errors("decrypting a connector key"):
            plain = self.kms.decrypt(CiphertextBlob=row["sealed"]["B"], EncryptionContext=self._context())
        return row["library"]["S"], SecretStr(plain["Plaintext"].decode())

    def revoke(self, target: str) -> bool:
        """Revoke the connection and drop its key; False when there was no active one."""
        with boto_errors("revoking a connection"):
            try:
                self.client.update_item(
                    TableName=self.table, Key=_key(self.principal, f"conn#{target}"),
                    UpdateExpression="SET #status = :revoked REMOVE sealed",
                    # Only an active connection is revoked: a sync racing the revoke never writes it back.
                    ConditionExpression="#status = :active",
                    ExpressionAttributeNames={"#status": "status"},
                    ExpressionAttributeValues={":revoked": {"S": "revoked"}, ":active": {"S": "active"}})
            except ClientError as exc:
                if error_code(exc) == CONDITION_FAILED:
                    return False
                raise
        return True

    # ------------------------------------------------------------------ one-time connect links
    def issue_link(self, target: str, ttl_s: int = CONNECT_LINK_TTL_S) -> str:
        """A one-time token for ``target``'s connect page, bound to this caller (only its hash is stored)."""
        token = secrets.token_urlsafe(32)
        with boto_errors("issuing a connect link"):
            self.client.put_item(TableName=self.table, Item={
                **_key(f"connect#{token_hash(token)}", "connect"), "principal": {"S": self.principal},
                "target": {"S": target}, "expires_at": {"N": str(int(time.time()) + ttl_s)}})
        return token

    @classmethod
    def redeem_link(cls, token: str, target: str, table: str | None = None, *, client: Any = None) -> str | None:
        """The principal a connect token for ``target`` was issued to, once (the row is deleted); else None.

        None: the token is unknown, expired, or was issued for another target (that link stays as it was, for its
        own page: the condition names the target, so a link cannot connect what it was not issued for).
        """
        store = cls("-", table, client=client)
        with boto_errors("redeeming a connect link"):
            try:
                old = store.client.delete_item(TableName=store.table,
                                               Key=_key(f"connect#{token_hash(token)}", "connect"),
                                               ConditionExpression="attribute_exists(pk) AND #target = :target",
                                               ExpressionAttributeNames={"#target": "target"},
                                               ExpressionAttributeValues={":target": {"S": target}},
                                               ReturnValues="ALL_OLD").get("Attributes")
            except ClientError as exc:
                if error_code(exc) == CONDITION_FAILED:
                    return None
                raise
        if not old or int(old["expires_at"]["N"]) <= time.time():
            return None
        return old["principal"]["S"]

    # ------------------------------------------------------------------ syncs
    def record_sync(self, target: str, library: str, direction: str) -> None:
        """Note that a sync with ``target`` (its ``library``) ended, so the listing shows it and when."""
        with boto_errors("recording a sync"):
            self.client.put_item(TableName=self.table, Item={
                **_key(self.principal, f"sync#{target}"), "library": {"S": library}, "direction": {"S": direction},
                "at": {"N": str(int(time.time()))}})

    def with_syncs(self, connections: list[Connection]) -> list[Connection]:
        """``connections`` with their last sync, and (one machine: its keys are in the environment or the keyring,
        not here) a listing of every other target the caller synced with."""
        synced = {row["sk"]["S"].removeprefix("sync#"): row for row in self._query("sync#")}
        listed = []
        for conn in connections:
            row = synced.pop(conn.target, None)
            listed.append(conn if row is None else conn.model_copy(update=_last_sync(row)))
        listed += [Connection(target=target, library=row["library"]["S"], created_at=int(row["at"]["N"]),
                              **_last_sync(row)) for target, row in sorted(synced.items())]
        return listed

    # ------------------------------------------------------------------ links and collections
    def links(self, target: str, library: str) -> dict[str, Link]:
        rows = self._query(f"link#{target}#{library}#")
        return {row["sk"]["S"].rsplit("#", 1)[1]: Link.model_validate_json(row["data"]["S"]) for row in rows}

    def put_links(self, target: str, library: str, links: Iterable[Link]) -> None:
        requests = [{"PutRequest": {"Item": {**_key(self.principal, f"link#{target}#{library}#{link.item_id}"),
                                             "data": {"S": link.model_dump_json(exclude_none=True)}}}}
                    for link in links]
        for start in range(0, len(requests), _BATCH_WRITE):
            pending = {self.table: requests[start:start + _BATCH_WRITE]}
            with boto_errors("storing sync links"):
                while pending:
                    pending = self.client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}

    def collection_key(self, target: str, library: str, name: str) -> str | None:
        with boto_errors("reading a collection link"):
            row = self.client.get_item(TableName=self.table,
                                       Key=_key(self.principal, f"coll#{target}#{library}#{name}")).get("Item")
        return row["key"]["S"] if row else None

    def put_collection_key(self, target: str, library: str, name: str, key: str) -> None:
        with boto_errors("storing a collection link"):
            self.client.put_item(TableName=self.table, Item={
                **_key(self.principal, f"coll#{target}#{library}#{name}"), "key": {"S": key}})

    def _query(self, prefix: str) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {
            "TableName": self.table, "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": self.principal}, ":prefix": {"S": prefix}},
            "ConsistentRead": True}
        with boto_errors("reading connections"):
            while True:
                page = self.client.query(**kwargs)
                rows += page.get("Items", [])
                if "LastEvaluatedKey" not in page:
                    return rows
                kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    aconnect = awaitable(connect)
    aconnection = awaitable(connection)
    aconnections = awaitable(connections)
    acredentials = awaitable(credentials)
    arevoke = awaitable(revoke)
    aissue_link = awaitable(issue_link)
    alinks = awaitable(links)
    aput_links = awaitable(put_links)
    acollection_key = awaitable(collection_key)
    aput_collection_key = awaitable(put_collection_key)
    arecord_sync = awaitable(record_sync)
    awith_syncs = awaitable(with_syncs)


def _last_sync(row: dict[str, Any]) -> dict[str, Any]:
    return {"last_sync_at": int(row["at"]["N"]), "last_direction": row["direction"]["S"]}


def _connection(row: dict[str, Any]) -> Connection:
    return Connection(target=row["sk"]["S"].removeprefix("conn#"), library=row["library"]["S"],
                      status=row["status"]["S"], created_at=int(row["created_at"]["N"]), has_key="sealed" in row)
