"""Library store figures (issue 12) in moto in-process: one write, a page of a list, a bulk load, a write race.

Each write is one TransactWriteItems on the caller's revision (scholar.store.library.table). moto copies the whole
table to roll back a failed transaction, so its write times grow with the table; DynamoDB's do not. What
carries over is the shape: requests per operation and how many attempts a race of writers costs.
``python -m benchmarks library_store`` (``BENCH_LIBRARY_ITEMS`` sets the library size, default 1000).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from benchmarks.common import bench_aws_env, report, timed


def main(fixtures: Path) -> None:
    import moto

    from scholar.core.config import get_settings
    from scholar.local import moto_dynamodb
    from scholar.store import aws
    from scholar.store.library import table as library_store
    from scholar.store.library.models import LibraryItem, item_id_for
    from tests.aws_tables import create_library_table

    size = int(os.environ.get("BENCH_LIBRARY_ITEMS", "1000"))
    bench_aws_env(SCHOLAR_LIBRARY_TABLE="bench-library")
    # Real record shapes: the recorded S2 paper (every field get_paper stores), one per item id.
    record = json.loads((fixtures / "upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json").read_text())

    def item(n: int) -> LibraryItem:
        return LibraryItem(item_id=item_id_for(f"bench:{n}"), ids=[f"bench:{n}"], paper=record,
                           added_at="2026-12-01T00:00:00Z", updated_at="2026-12-01T00:00:00Z")

    with moto.mock_aws():
        get_settings.cache_clear()
        aws.reset_clients()
        moto_dynamodb.install()
        create_library_table(aws.dynamodb(), "bench-library")
        store = library_store.LibraryStore("bench")
        began = time.perf_counter()
        store.put_many([item(n) for n in range(size)])
        load_s = time.perf_counter() - began
        print(f"{'library: put_many of ' + str(size) + ' items (30 per transaction)':<58} {load_s:8.2f} s "
              f"({size / load_s:.0f} items/s)", flush=True)
        counter = iter(range(size, size + 10_000))
        report(f"library: put one item into {size}", timed(lambda: store.put(item(next(counter))), repeat=30))
        report(f"library: list a page of 50 of {size}", timed(lambda: store.list_items(limit=50), repeat=30))
        report(f"library: get_many of 50 of {size}",
               timed(lambda: store.get_many([item_id_for(f"bench:{n}") for n in range(50)]), repeat=30))

        attempts = [0]
        real_commit = library_store.LibraryStore._commit

        def counted(self: library_store.LibraryStore, what: str, actions: list) -> None:
            attempts[0] += 1
            real_commit(self, what, actions)

        library_store.LibraryStore._commit = counted  # type: ignore[method-assign]  # counting attempts only
        try:
            writers = [threading.Thread(target=lambda n=n: library_store.LibraryStore("race").put(item(n)))
                       for n in range(20)]
            began = time.perf_counter()
            for writer in writers:
                writer.start()
            for writer in writers:
                writer.join()
            race_s = time.perf_counter() - began
        finally:
            library_store.LibraryStore._commit = real_commit  # type: ignore[method-assign]
        race = library_store.LibraryStore("race")
        print(f"{'library: 20 threads add 20 papers to one library':<58} {race_s * 1000:8.1f} ms   "
              f"{attempts[0]} transactions for {race.usage()[0]} items, revision {race.revision()}", flush=True)
