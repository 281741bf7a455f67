"""API keys a server's owner creates (``scholar keys add NAME``), kept as SHA-256 hashes in the AuthTable.

For ``scholar serve`` bound beyond loopback: a caller is told apart by a key its owner made, and an unknown key is
refused (issue 32), where a loopback server lets any ``x-api-key`` name a new caller. Two rows per key, written in
one transaction: ``keys``/``name#<name>`` (the owner's list; a name is taken once) and ``key#<hash>``/``key`` (the
lookup of a presented key). The key's value is shown once, when it is made; only its hash is stored. Works on both
backends (the AuthTable is ``auth`` on one machine).
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from botocore.exceptions import ClientError

from scholar.core.config import AUTH_TABLE_ENV
from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.store.base import Store, token_hash
from scholar.store.boundary import boto_errors, error_code

NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
PREFIX = "sch_"
_LIST = "keys"


class OwnerKeyStore(Store):
    """Add, check, list and remove the owner's named API keys."""

    RESOURCE = "auth_table"
    ENV = AUTH_TABLE_ENV
    NOUN = "auth table"

    def _rows(self, name: str, digest: str) -> tuple[dict[str, Any], dict[str, Any]]:
        return ({"pk": {"S": _LIST}, "sk": {"S": f"name#{name}"}},
                {"pk": {"S": f"key#{digest}"}, "sk": {"S": "key"}})

    def add(self, name: str) -> str:
        """Make a key named ``name``; its value (shown once: only its hash is kept).

        Raises:
            InvalidArgumentError: the name is not 1–64 of ``a-z 0-9 _ -``, or a key of that name exists.
        """
        if not NAME.match(name):
            raise InvalidArgumentError("a key name is 1-64 characters of a-z, 0-9, _ and -, starting with a letter "
                                       "or digit", field="name")
        value = PREFIX + secrets.token_urlsafe(32)
        listed, lookup = self._rows(name, token_hash(value))
        created, table = {"S": str(int(time.time()))}, self._required()
        with boto_errors("storing an API key"):
            try:
                self.client.transact_write_items(TransactItems=[
                    {"Put": {"TableName": table, "Item": {**listed, "hash": lookup["pk"], "created": created},
                             "ConditionExpression": "attribute_not_exists(pk)"}},
                    {"Put": {"TableName": table, "Item": {**lookup, "name": {"S": name}, "created": created},
                             "ConditionExpression": "attribute_not_exists(pk)"}},
                ])
            except ClientError as exc:
                if error_code(exc) != "TransactionCanceledException":
                    raise
                raise InvalidArgumentError(f"a key named {name!r} exists already; remove it first",
                                           field="name") from exc
        return value

    def name_for(self, presented: str) -> str | None:
        """The name of the key whose value is ``presented``, or None (an unknown key: refuse the caller)."""
        with boto_errors("checking an API key"):
            item = self.client.get_item(TableName=self._required(), Key=self._rows("", token_hash(presented))[1],
                                        ConsistentRead=True).get("Item")
        return item["name"]["S"] if item else None

    def names(self) -> list[str]:
        """The names of the owner's keys, sorted."""
        with boto_errors("listing API keys"):
            out = self.client.query(TableName=self._required(), KeyConditionExpression="pk = :p",
                                    ExpressionAttributeValues={":p": {"S": _LIST}}, ConsistentRead=True)
        return sorted(item["sk"]["S"].removeprefix("name#") for item in out.get("Items", []))

    def remove(self, name: str) -> None:
        """Remove the key named ``name``: its value is refused from now on.

        Raises:
            NotFoundError: no key has that name.
        """
        table = self._required()
        with boto_errors("removing an API key"):
            listed = self.client.get_item(TableName=table, Key=self._rows(name, "")[0], ConsistentRead=True).get("Item")
            if not listed:
                raise NotFoundError(f"no API key is named {name!r}", hint="List them with `scholar keys list`.")
            self.client.transact_write_items(TransactItems=[
                {"Delete": {"TableName": table, "Key": self._rows(name, "")[0]}},
                {"Delete": {"TableName": table, "Key": {"pk": listed["hash"], "sk": {"S": "key"}}}},
            ])
