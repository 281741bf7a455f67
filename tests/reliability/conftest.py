"""The reliability suite's fixtures borrowed from other areas: the fake Zotero and the connection store."""

from tests.connectors.conftest import client, connections_table, fake, store, waits  # noqa: F401  # fixtures
