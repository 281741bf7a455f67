"""A caller's library in the LibraryTable: items, collections, the change log, and their bounds.

``table`` is the store; ``models`` the rows' pydantic shapes; ``rows`` and ``bounds`` build and bound them;
``actions`` and ``transact`` are the conditioned writes.
"""
