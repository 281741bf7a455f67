"""Every library_sync target: its name, what it can do, and the class that implements it (imported on first use).

This table is what the rest reads: library_sync's input schema takes its ``target`` enum from ``TARGETS`` (so the
command line, generated from the catalogue, offers the same choices), library_sync checks ``Abilities`` before
any request, library_connections offers the connect page for the targets that have one, and docs/connectors.md
lists the same rows (a test compares them). Adding a connector is one row here and one module (CONTRIBUTING.md).

The non-obvious constraint: the catalogue imports this module to build the tool listing, on the gateway's cold
start, so it stays light: an implementation is named as ``module.Class`` below this package and imported only when
a sync runs.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from scholar.services.connectors.base import Abilities, Connector

__all__ = ["REGISTRATIONS", "TARGETS", "Registration", "connector", "registration"]


@dataclass(frozen=True)
class Registration:
    """One target: its name (library_sync's ``target``), a line for the docs, its abilities, its implementation."""

    name: str
    summary: str
    abilities: Abilities
    implementation: str  # "module.Class" below scholar.services.connectors; Class(registration) is the connector


REGISTRATIONS: tuple[Registration, ...] = (
    Registration("zotero", "Zotero's web API: items, child notes, PDFs", Abilities(connect_page=True),
                 "zotero_target.WebZotero"),
    Registration("zotero_local", "Zotero desktop on this machine (its local API)",
                 Abilities(push=False, collection_for=frozenset(), local_only=True,
                           refusal="target zotero_local is read-only (the desktop's local API): push with target "
                                   "zotero"),
                 "zotero_target.DesktopZotero"),
    Registration("bibtex", "a .bib file per collection", Abilities(collection_for=frozenset({"push", "pull"})),
                 "file_targets.BibtexFile"),
    Registration("obsidian", "an Obsidian vault folder per collection, one note per item",
                 Abilities(pull=False, refusal="target obsidian is push only (the notes are yours to edit)"),
                 "file_targets.ObsidianVault"),
    Registration("notion", "a Notion database: one page per item, notes as its content", Abilities(connect_page=True),
                 "notion_target.NotionTarget"),
)
TARGETS: tuple[str, ...] = tuple(r.name for r in REGISTRATIONS)
_BY_NAME = {r.name: r for r in REGISTRATIONS}


def registration(name: str) -> Registration:
    """The registration of target ``name``.

    Raises:
        KeyError: no such target (library_sync's schema admits only ``TARGETS``).
    """
    return _BY_NAME[name]


def connector(name: str) -> Connector[Any]:
    """The connector of target ``name``, its implementation imported now.

    Raises:
        KeyError: no such target.
    """
    entry = _BY_NAME[name]
    module, _, cls = entry.implementation.rpartition(".")
    return getattr(importlib.import_module(f"scholar.services.connectors.{module}"), cls)(entry)
