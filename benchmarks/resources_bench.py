"""Resources, prompts and completions through the gateway Lambda handler, warm, in-process (issue #23).

- The caller's library (moto's LibraryTable, in-process) holds 50 items: recorded S2 search results
  (tests/library/helpers.py), one with a kept PDF (a recorded arXiv PDF) and its Markdown;
- each request is an API Gateway REST event through ``functions.gateway.app.lambda_handler``, the research
  function in-process (``SCHOLAR_LOCAL_DISPATCH``), as ``benchmarks/gateway_bench.py`` times tools/list;
- catalogue answers (templates, prompts, a catalogue completion) never leave the gateway; the caller's (list,
  read, a tag completion) are one research invocation each, so their figures are moto's reads plus dispatch.

``python -m benchmarks resources``
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from benchmarks.common import in_process_stack, report, timed

REPO = Path(__file__).resolve().parents[1]
ITEMS = 50
PDF = "arxiv_2305.03393v1_page9_only.pdf"


def _event(message: dict[str, Any]) -> dict[str, Any]:
    event = json.loads((REPO / "events" / "api_rest_v1_tools_call.json").read_text())
    event["body"] = json.dumps(message)
    return event


def _library(fixtures: Path, principal: str) -> str:
    """The caller's 50 items, the first with a kept PDF and its Markdown; returns that item's id."""
    from scholar.services.fulltext import artifacts
    from scholar.store import aws
    from scholar.store.blobs import BlobStore
    from scholar.store.library.models import PdfVersion
    from scholar.store.library.table import LibraryStore
    from tests.aws_tables import create_library_table
    from tests.library.helpers import NOW, recorded_item

    create_library_table(aws.dynamodb(), "bench-library")
    data = (fixtures / "pdfs" / PDF).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    pdf_path = BlobStore().put(artifacts.pdf_key(sha), data, "application/pdf")
    md_path = artifacts.md_key(sha, "builtin")
    artifacts.put_markdown(md_path, "<!-- page 1 -->\n# A kept paper\n")
    kept = PdfVersion(pdf_path=pdf_path, sha256=sha, size_bytes=len(data), version="preprint", pdf_source="arxiv",
                      source_url="https://arxiv.org/pdf/2305.03393v1", kept_at=NOW)
    store = LibraryStore(principal)
    items = [recorded_item(n, collection=f"c{n % 5}", tags=(f"t{n % 7}",)) for n in range(ITEMS)]
    items[0] = items[0].model_copy(update={"pdfs": [kept], "md_path": md_path})
    store.put_many(items)
    return items[0].item_id


def main(fixtures: Path) -> None:
    import os

    from functions.gateway.app import lambda_handler
    from scholar.core.config import get_settings
    from scholar.runtime.context import LocalContext

    with in_process_stack(fixtures):
        os.environ["SCHOLAR_LIBRARY_TABLE"] = "bench-library"
        get_settings.cache_clear()
        event = _event({})
        principal = f"apikey:{event['requestContext']['identity']['apiKeyId']}"
        item_id = _library(fixtures, principal)
        ctx = LocalContext(function_name="scholar-bench-gateway")
        uri = f"scholar://library/{item_id}"
        requests = [
            ("resources/templates/list (gateway only)", "resources/templates/list", {}),
            ("prompts/list (gateway only)", "prompts/list", {}),
            ("prompts/get literature_review (gateway only)", "prompts/get",
             {"name": "literature_review", "arguments": {"question": "graph neural networks"}}),
            ("completion category (gateway only)", "completion/complete",
             {"ref": {"type": "ref/prompt", "name": "literature_review"}, "argument": {"name": "category",
                                                                                       "value": "cs."}}),
            (f"resources/list, {ITEMS} items (research function)", "resources/list", {}),
            ("resources/read a library item (research function)", "resources/read", {"uri": uri}),
            ("resources/read its kept PDF, 0.1 MB blob (research function)", "resources/read", {"uri": f"{uri}/pdf"}),
            ("completion tag of the caller (research function)", "completion/complete",
             {"ref": {"type": "ref/prompt", "name": "related_work_section"}, "argument": {"name": "tag",
                                                                                          "value": "t"}}),
        ]
        for name, method, params in requests:
            request = _event({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            answer = json.loads(lambda_handler(request, ctx)["body"])
            assert "result" in answer, answer
            report(f"gateway warm {name}", timed(lambda request=request: lambda_handler(request, ctx), 200, 10))


if __name__ == "__main__":
    from benchmarks.__main__ import _fixtures

    found = _fixtures()
    if found is None:
        raise SystemExit("recorded upstream fixtures not found (set SCHOLAR_FIXTURES_DIR)")
    main(found)
