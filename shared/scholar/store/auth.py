"""The AuthTable: the OAuth authorization server's state (clients, codes, refresh families, caches, counters).

One DynamoDB table, ``pk`` / ``sk``, TTL on ``expires_at`` (every read filters it: DynamoDB deletes lazily).
Secrets are never stored: authorization codes, refresh tokens and client secrets are kept as SHA-256 hashes
(they are 256-bit random values, so a plain hash cannot be inverted or guessed). Single use is a conditional
write: a code is redeemed by flipping ``used`` from false to true, a refresh token by swapping the family's
``current`` hash, and whoever loses the race learns it from the failed condition, never from a read.

    pk                      sk        holds
    client#<client_id>      client    a registered (DCR) client
    pending#<id>            pending   an authorization request waiting for the upstream sign-in or the consent
    code#<sha256(code)>     code      an authorization code (single use, minutes)
    family#<fid>            family    a refresh-token family: current hash, earlier hashes, status
    cimd#<sha256(url)>      cimd      a fetched client metadata document, for as long as its cache headers allow
    rate#<name>#<window>    rate      a counter (registrations per source per hour)

The methods are awaitable: each runs its boto3 call off the event loop (``scholar.core.aio.off_loop``).
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal

from botocore.exceptions import ClientError
from pydantic import BaseModel, Field

from scholar.core.aio import off_loop
from scholar.core.config import AUTH_TABLE_ENV
from scholar.store.base import Store, token_hash
from scholar.store.boundary import boto_errors, error_code

CONDITION_FAILED = "ConditionalCheckFailedException"
# Earlier refresh hashes a family remembers: presenting one of them again is reuse (the family is revoked).
REMEMBERED_REFRESH_HASHES = 50


class ClientRecord(BaseModel):
    """A client registered through RFC 7591 (dynamic client registration)."""

    client_id: str
    client_name: str | None = None
    redirect_uris: list[str]
    grant_types: list[str] = Field(default_factory=lambda: ["authorization_code", "refresh_token"])
    token_endpoint_auth_method: Literal["none", "client_secret_post", "client_secret_basic"] = "none"
    secret_hash: str | None = None
    scope: str | None = None
    client_uri: str | None = None
    logo_uri: str | None = None
    issued_at: int
    expires_at: int


class PendingAuthorization(BaseModel):
    """An authorization request between /authorize and the code: the client's parameters and our upstream leg."""

    id: str
    client_id: str
    client_name: str
    client_kind: str = "registered"
    redirect_uri: str
    state: str
    code_challenge: str
    scope: str
    resource: str
    login_hint: str | None = None
    # The upstream OIDC leg (our own state is the pending id; PKCE verifier and nonce for the ID token).
    upstream_verifier: str | None = None
    upstream_nonce: str | None = None
    # After the upstream sign-in: who signed in, waiting for the consent.
    principal: str | None = None
    user_label: str | None = None
    # Hash of a cookie set on the browser that started the sign-in: the callback and consent need it (login CSRF).
    browser: str | None = None
    expires_at: int


class CodeRecord(BaseModel):
    """An authorization code's grant (stored under the code's hash)."""

    client_id: str
    redirect_uri: str
    code_challenge: str
    scope: str
    resource: str
    principal: str
    # The refresh family this code starts, chosen when the code is made: a second use revokes it.
    family: str
    expires_at: int


class FamilyRecord(BaseModel):
    """A refresh-token family: every access and refresh token one authorization produced."""

    fid: str
    client_id: str
    principal: str
    scope: str
    resource: str
    current: str
    previous: list[str] = Field(default_factory=list)
    status: Literal["active", "revoked"] = "active"
    generation: int = 0
    created_at: int
    expires_at: int


class CachedDocument(BaseModel):
    """A client metadata document as fetched, kept until its HTTP cache lifetime ends."""

    url: str
    document: dict[str, Any]
    expires_at: int


class RefreshOutcome(BaseModel):
    """What presenting a refresh token found."""

    outcome: Literal["rotated", "reused", "unknown", "revoked"]
    family: FamilyRecord | None = None


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _item(pk: str, sk: str, model: BaseModel, expires_at: int, **extra: dict[str, Any]) -> dict[str, Any]:
    return {**_key(pk, sk), "data": {"S": model.model_dump_json(exclude_none=True)},
            "expires_at": {"N": str(expires_at)}, **extra}


def _live(item: dict[str, Any] | None, now: float) -> dict[str, Any] | None:
    if not item or int(item["expires_at"]["N"]) <= now:
        return None
    return json.loads(item["data"]["S"])


class AuthStore(Store):
    """Reads and conditional writes of the authorization server's state (``Store``: table and client resolution)."""

    RESOURCE = "auth_table"
    ENV = AUTH_TABLE_ENV
    NOUN = "auth table"

    @property
    def table(self) -> str:
        return self._required()

    # ------------------------------------------------------------------ plain items
    def _put(self, item: dict[str, Any], what: str, condition: str | None = None) -> bool:
        table = self.table
        with boto_errors(what):
            try:
                kwargs = {"ConditionExpression": condition} if condition else {}
                self.client.put_item(TableName=table, Item=item, **kwargs)
            except ClientError as exc:
                if error_code(exc) == CONDITION_FAILED:
                    return False
                raise
        return True

    def _get(self, pk: str, sk: str, what: str) -> dict[str, Any] | None:
        table = self.table
        with boto_errors(what):
            item = self.client.get_item(TableName=table, Key=_key(pk, sk), ConsistentRead=True).get("Item")
        return _live(item, time.time())

    def _take(self, pk: str, sk: str, what: str) -> dict[str, Any] | None:
        """Delete an item and return what it held: exactly one caller ever gets it."""
        table = self.table
        with boto_errors(what):
            try:
                old = self.client.delete_item(TableName=table, Key=_key(pk, sk), ReturnValues="ALL_OLD",
                                              ConditionExpression="attribute_exists(pk)").get("Attributes")
            except ClientError as exc:
                if error_code(exc) == CONDITION_FAILED:
                    return None
                raise
        return _live(old, time.time())

    # ------------------------------------------------------------------ clients
    async def put_client(self, record: ClientRecord) -> None:
        """Store a newly registered client (its id is new: an existing one is never overwritten)."""
        item = _item(f"client#{record.client_id}", "client", record, record.expires_at)
        await off_loop(self._put, item, "registering a client", "attribute_not_exists(pk)")

    async def get_client(self, client_id: str) -> ClientRecord | None:
        data = await off_loop(self._get, f"client#{client_id}", "client", "reading a client")
        return ClientRecord.model_validate(data) if data else None

    # ------------------------------------------------------------------ pending authorizations
    async def put_pending(self, pending: PendingAuthorization) -> None:
        item = _item(f"pending#{pending.id}", "pending", pending, pending.expires_at)
        await off_loop(self._put, item, "recording an authorization request")

    async def take_pending(self, pending_id: str) -> PendingAuthorization | None:
        """The pending authorization, removed as it is read (a callback or a consent is answered once)."""
        data = await off_loop(self._take, f"pending#{pending_id}", "pending", "reading an authorization request")
        return PendingAuthorization.model_validate(data) if data else None

    # ------------------------------------------------------------------ codes
    async def put_code(self, code: str, record: CodeRecord) -> None:
        item = _item(f"code#{token_hash(code)}", "code", record, record.expires_at, used={"BOOL": False})
        await off_loop(self._put, item, "storing an authorization code", "attribute_not_exists(pk)")

    def _redeem(self, code: str) -> tuple[bool, CodeRecord | None]:
        table, key = self.table, _key(f"code#{token_hash(code)}", "code")
        with boto_errors("redeeming an authorization code"):
            try:
                # Timeline guarded: two token requests with one code; only the first flips used to true.
                attributes = self.client.update_item(
                    TableName=table, Key=key, UpdateExpression="SET used = :yes",
                    ConditionExpression="attribute_exists(pk) AND used = :no AND expires_at > :now",
                    ExpressionAttributeValues={":yes": {"BOOL": True}, ":no": {"BOOL": False},
                                               ":now": {"N": str(int(time.time()))}},
                    ReturnValues="ALL_NEW",
                )["Attributes"]
            except ClientError as exc:
                if error_code(exc) != CONDITION_FAILED:
                    raise
                item = self.client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
                data = _live(item, time.time())
                return False, CodeRecord.model_validate(data) if data else None
        return True, CodeRecord.model_validate(json.loads(attributes["data"]["S"]))

    async def redeem_code(self, code: str) -> tuple[bool, CodeRecord | None]:
        """Use a code once: ``(True, record)`` the first time; ``(False, record)`` when it was used before (the
        record tells which family it gave); ``(False, None)`` when it never existed or expired."""
        return await off_loop(self._redeem, code)

    # ------------------------------------------------------------------ refresh families
    async def put_family(self, family: FamilyRecord) -> None:
        item = _item(f"family#{family.fid}", "family", family, family.expires_at,
                     current={"S": family.current}, status={"S": family.status})
        await off_loop(self._put, item, "starting a refresh family", "attribute_not_exists(pk)")

    async def get_family(self, fid: str) -> FamilyRecord | None:
        data = await off_loop(self._get, f"family#{fid}", "family", "reading a refresh family")
        return FamilyRecord.model_validate(data) if data else None

    def family_status(self, fid: str) -> str | None:
        """``active``, ``revoked`` or None (unknown or expired); sync: the gateway calls it between cached reads."""
        table = self.table
        with boto_errors("reading a token family's status"):
            item = self.client.get_item(TableName=table, Key=_key(f"family#{fid}", "family"), ConsistentRead=True,
                                        ProjectionExpression="#s, expires_at",
                                        ExpressionAttributeNames={"#s": "status"}).get("Item")
        if not item or int(item["expires_at"]["N"]) <= time.time():
            return None
        return item["status"]["S"]

    def _rotate(self, fid: str, presented: str, new_token: str, expires_at: int) -> RefreshOutcome:
        table, key = self.table, _key(f"family#{fid}", "family")
        old_hash, new_hash = token_hash(presented), token_hash(new_token)
        with boto_errors("rotating a refresh token"):
            item = self.client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
            data = _live(item, time.time())
            if data is None:
                return RefreshOutcome(outcome="unknown")
            family = FamilyRecord.model_validate(data)
            if family.status == "revoked":
                return RefreshOutcome(outcome="revoked", family=family)
            if old_hash != family.current:
                return RefreshOutcome(outcome="reused" if old_hash in family.previous else "unknown", family=family)
            rotated = family.model_copy(update={
                "current": new_hash, "previous": [old_hash, *family.previous][:REMEMBERED_REFRESH_HASHES],
                "generation": family.generation + 1, "expires_at": expires_at,
            })
            try:
                # Timeline guarded: two refreshes with the same token race; only the one that still sees its
                # hash as current swaps it. The loser presented a token that is no longer current: reuse.
                self.client.put_item(
                    TableName=table,
                    Item=_item(key["pk"]["S"], "family", rotated, expires_at, current={"S": new_hash},
                               status={"S": "active"}),
                    ConditionExpression="#c = :old AND #s = :active",
                    ExpressionAttributeNames={"#c": "current", "#s": "status"},
                    ExpressionAttributeValues={":old": {"S": old_hash}, ":active": {"S": "active"}},
                )
            except ClientError as exc:
                if error_code(exc) != CONDITION_FAILED:
                    raise
                return RefreshOutcome(outcome="reused", family=family)
        return RefreshOutcome(outcome="rotated", family=rotated)

    async def rotate_refresh(self, fid: str, presented: str, new_token: str, expires_at: int) -> RefreshOutcome:
        """Swap the family's current refresh token for ``new_token`` if ``presented`` is the current one.

        Returns ``rotated`` (with the updated family), ``reused`` (an earlier token of the family, or a lost
        race: the caller revokes the family), ``revoked`` or ``unknown``.
        """
        return await off_loop(self._rotate, fid, presented, new_token, expires_at)

    def _revoke(self, fid: str) -> None:
        table, key = self.table, _key(f"family#{fid}", "family")
        with boto_errors("revoking a refresh family"):
            item = self.client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
            if not item:
                return
            data = json.loads(item["data"]["S"]) | {"status": "revoked"}
            self.client.update_item(
                TableName=table, Key=key, UpdateExpression="SET #s = :revoked, #d = :d",
                ExpressionAttributeNames={"#s": "status", "#d": "data"},
                ExpressionAttributeValues={":revoked": {"S": "revoked"}, ":d": {"S": json.dumps(data)}},
            )

    async def revoke_family(self, fid: str) -> None:
        """Mark a family revoked: its refresh tokens stop working now, its access tokens at the gateway's next read."""
        await off_loop(self._revoke, fid)

    # ------------------------------------------------------------------ client metadata documents
    async def get_document(self, url: str) -> CachedDocument | None:
        data = await off_loop(self._get, f"cimd#{token_hash(url)}", "cimd", "reading a client metadata document")
        return CachedDocument.model_validate(data) if data else None

    async def put_document(self, cached: CachedDocument) -> None:
        item = _item(f"cimd#{token_hash(cached.url)}", "cimd", cached, cached.expires_at)
        await off_loop(self._put, item, "caching a client metadata document")

    # ------------------------------------------------------------------ counters
    def _count(self, name: str, window_s: int, limit: int) -> bool:
        window = int(time.time()) // window_s
        table = self.table
        with boto_errors("counting requests"):
            try:
                # One atomic ADD per request, refused once the window's count reached the limit.
                self.client.update_item(
                    TableName=table, Key=_key(f"rate#{name}#{window}", "rate"),
                    UpdateExpression="ADD n :one SET expires_at = :exp",
                    ConditionExpression="attribute_not_exists(n) OR n < :limit",
                    ExpressionAttributeValues={":one": {"N": "1"}, ":limit": {"N": str(limit)},
                                               ":exp": {"N": str((window + 2) * window_s)}},
                )
            except ClientError as exc:
                if error_code(exc) == CONDITION_FAILED:
                    return False
                raise
        return True

    async def allow(self, name: str, *, window_s: int, limit: int) -> bool:
        """Count one event under ``name`` in the current window; False once ``limit`` were counted there."""
        return await off_loop(self._count, name, window_s, limit)
