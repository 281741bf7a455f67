"""Connectors: a caller's library sent to and brought back from where researchers keep theirs (issue 30).

``zotero_map`` (a library item ↔ a Zotero item), ``zotero_sync`` (push and pull, incremental), ``credentials``
(which key a caller's sync uses: the environment, the OS keyring, or the caller's stored connection).
"""
