"""Two index holders never share an index file (the research workflow e2e once failed with sqlite3's "attempt
to write a readonly database").

A holder's ``_load`` removes ``<digest>.sqlite`` and puts the S3 copy in its place. When two holders (two test
processes on one machine, or two stacks in one process) kept their files in one directory, the second's load
unlinked the file the first still had open; SQLite then refuses every write on the first connection
(SQLITE_READONLY_DBMOVED), and its next catch-up failed as ``internal``. Each holder now keeps its files in a
directory of its own.
"""

from __future__ import annotations

import pytest

from scholar.services.library.index import Filters
from scholar.services.library.index_cache import IndexHolder
from tests.library.corpus import MemoryLibrary, items

ALICE = "apikey:alice"


@pytest.mark.usefixtures("aws")
def test_two_holders_in_one_temp_directory_never_unlink_each_others_index_file() -> None:
    corpus = items(30)
    store = MemoryLibrary(corpus[:20])
    first, second = IndexHolder(), IndexHolder()
    try:
        query = corpus[5].paper["title"]
        assert first.search(ALICE, store, query, Filters(), limit=5, offset=0).hits[0].item_id == corpus[5].item_id
        second.search(ALICE, store, query, Filters(), limit=5, offset=0)  # loads the caller's index afresh
        for value in corpus[20:]:
            store.put(value)

        page = first.search(ALICE, store, corpus[25].paper["title"], Filters(), limit=5, offset=0)  # a catch-up

        assert page.hits[0].item_id == corpus[25].item_id
        assert first.directory != second.directory
    finally:
        first.reset()
        second.reset()
