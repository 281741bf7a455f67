"""The connector contract: what every library_sync target is and does, so the tool never asks which one it has.

A connector is one place a caller's library goes to and comes back from (Zotero, a .bib file, a Notion database …).
It declares what it can do (``Abilities``: push, pull, whether a direction needs a collection, read-only or
push-only, reachable from this machine only), says where its credentials come from (``credentials``), and
pushes or pulls one collection, for real or as a dry run that reads the other side and writes nothing. library_sync
checks the abilities, lists the collection, queues a long push, and hands the rest to the connector.

The non-obvious constraint: a connector never overwrites an edit made on the other side since the last sync; it
reports a ``conflict`` for that item instead (scholar.services.connectors.outcome).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

from scholar.services.connectors.outcome import SyncReport
from scholar.store.library.models import LibraryItem

__all__ = ["Abilities", "Connector", "Direction", "Entry", "Progress", "PullJob", "PushJob", "Registered"]

Direction = Literal["push", "pull"]
# Awaited with (done, total) after each phase of a long push (a queued sync records it on its task).
Progress = Callable[[int, int], Awaitable[None]]
Credentials = TypeVar("Credentials")


@dataclass(frozen=True)
class Abilities:
    """What a target can do; library_sync refuses anything else before a request is sent.

    Attributes:
        push: it can be written (False: read-only, e.g. the Zotero desktop's local API).
        pull: it can be read back into the library (False: push-only, e.g. Obsidian notes are the user's).
        collection_for: the directions that need a collection (a push always names the one it sends).
        local_only: it is on the caller's own computer, so a hosted server cannot reach it.
        connect_page: hosted callers connect it on the server's connect page (library_connections offers the link
            and can remove the connection).
        refusal: why a direction it lacks is refused, and what to do instead.
    """

    push: bool = True
    pull: bool = True
    collection_for: frozenset[Direction] = frozenset({"push"})
    local_only: bool = False
    connect_page: bool = False
    refusal: str = ""

    def can(self, direction: Direction) -> bool:
        return self.push if direction == "push" else self.pull

    def needs_collection(self, direction: Direction) -> bool:
        return direction in self.collection_for


@dataclass(frozen=True)
class PushJob:
    """One push: the caller, the collection's items in the order to write them, and how to report progress."""

    principal: str
    collection: str
    items: Sequence[LibraryItem]
    dry_run: bool = False
    progress: Progress | None = field(default=None, compare=False)


@dataclass(frozen=True)
class PullJob:
    """One pull: the caller and the other side's collection (None: everything there)."""

    principal: str
    collection: str | None
    dry_run: bool = False


class Entry(Protocol):
    """What a connector is built from: its registry entry (scholar.services.connectors.registry.Registration)."""

    @property
    def name(self) -> str: ...

    @property
    def abilities(self) -> Abilities: ...


class Registered:
    """A connector's name and abilities, as its registry entry declares them (the base of every connector)."""

    def __init__(self, entry: Entry) -> None:
        self.name = entry.name
        self.abilities = entry.abilities


class Connector(Protocol[Credentials]):
    """A library_sync target (one entry of scholar.services.connectors.registry)."""

    name: str
    abilities: Abilities

    def long_push(self, items: Sequence[LibraryItem]) -> bool:
        """Whether pushing ``items`` may outlast a direct call (library_sync then queues it as a task)."""
        ...

    async def credentials(self, principal: str) -> Credentials:
        """Where this caller's sync goes and the key it uses; never logged, never in an answer.

        Raises:
            ForbiddenError: no key or connection for this caller (its hint says where the key goes).
        """
        ...

    async def push(self, credentials: Credentials, job: PushJob) -> SyncReport:
        """Send the collection; only what changed on our side; the other side's edits are conflicts, never lost."""
        ...

    async def pull(self, credentials: Credentials, job: PullJob) -> SyncReport:
        """Bring the other side's collection into ours; only what changed there."""
        ...
