"""Patents figures (issue 10): upstream requests against the least EPO OPS allows, counted at the fake upstream.

- get_patent with all seven sections: one token request + one request per OPS answer (biblio serves biblio,
  abstract and citations; claims, description, family, legal one each) = 1 + 5.
- batch_resolve of 50 patent numbers: one bulk biblio POST (OPS takes 100 numbers a request) + the token.
- fetch_patent_pdf of the recorded 21-page EP3491801B1: 1 images inquiry + 21 pages, nothing repeated,
  plus the wall time of assembling the pages into one PDF.

The OPS answers are the recorded ones (the fake upstream serves the PROVENANCE rows); the 50 numbers are
synthetic (EP.1000000.A1 …) and answered with the recorded 3-document bulk body; the page PDFs are
synthetic one-page PDFs cut from a recorded PDF (tests.patents.helpers.synthetic_pages). No cache table,
pacing off: every run asks the upstream. Run: ``python -m benchmarks patents``.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from pathlib import Path

from benchmarks.common import pointed_at

PAGES = "/3.2/rest-services/published-data/images/EP/3491801/B1/fullimage.pdf"


def _line(name: str, value: str) -> None:
    print(f"{name:<62} {value}", flush=True)


def _pointed_at(base_url: str) -> AbstractContextManager[None]:
    """Every source at the fake upstream, EPO credentials set, no OPS token or fair-use state from before."""
    from scholar.sources import epo_ops_auth, epo_ops_fairuse

    return pointed_at(base_url, env={"SCHOLAR_RETRY_BUDGET_S": "0", "SCHOLAR_EPO_CONSUMER_KEY": "bench-key",
                                     "SCHOLAR_EPO_CONSUMER_SECRET": "bench-secret"},
                      forget=(epo_ops_auth.forget, epo_ops_fairuse.forget))


def main(fixtures: Path) -> None:
    from scholar.core import aio
    from scholar.core.patent_numbers import parse_patent_number
    from scholar.families.papers.batch import batch_resolve
    from scholar.families.papers.spec_export import BatchResolveInput
    from scholar.families.patents import pdf
    from scholar.families.patents.get import get_patent
    from scholar.families.patents.spec import GetPatentInput
    from tests.fakes.upstream import FakeUpstream
    from tests.patents.helpers import synthetic_pages

    print("Patents (EPO OPS) — upstream requests per call, counted at the fake upstream")
    with FakeUpstream(fixtures) as fake, _pointed_at(fake.base_url):
        sections = ["biblio", "abstract", "claims", "description", "family", "legal", "citations"]
        aio.run(get_patent(GetPatentInput(patent_number="EP2400812A1", sections=sections)))
        _line("get_patent, all 7 sections (least: 1 token + 5)", f"{fake.count('epo_ops')} requests")

        fake.reset()
        from scholar.sources import epo_ops_auth

        epo_ops_auth.forget()
        numbers = [f"EP{1000000 + i}A1" for i in range(50)]
        aio.run(batch_resolve(BatchResolveInput(identifiers=numbers)))
        _line("batch_resolve, 50 patent numbers (least: 1 token + 1 bulk)", f"{fake.count('epo_ops')} requests")

        fake.reset()
        epo_ops_auth.forget()
        pages = synthetic_pages(12)
        for number in range(1, 22):
            fake.add_route("GET", "epo_ops", PAGES, query={"Range": str(number)}, body=pages[(number - 1) % 12],
                           content_type="application/pdf")
        instance = aio.run(pdf.inquire(parse_patent_number("EP3491801B1")))
        fetched = aio.run(pdf.fetch_pages(instance, lambda done, total: None))
        start = time.perf_counter()
        data = pdf.assemble(fetched)
        assembled_ms = (time.perf_counter() - start) * 1000
        ops = fake.count("epo_ops") - 1  # without the token request
        _line(f"fetch_patent_pdf, {instance.pages} pages (least: 1 inquiry + {instance.pages})",
              f"{ops} requests ({fake.count('epo_ops', PAGES)} page requests)")
        _line("  assembling the pages into one PDF", f"{assembled_ms:.1f} ms, {len(data) / 1024:.0f} KiB")
