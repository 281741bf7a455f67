"""get_standard's full text for NIST, ETSI (PDF, converted as a task) and W3C (HTML, inline), stored in S3.

Served upstream bodies: the PDFs are real PDFs from ``fixtures/pdfs`` standing in for the NIST / ETSI
documents (no standard PDF is among the recordings); the W3C page is the SYNTHETIC_W3C_SPEC below, written
after W3C's real spec markup (div.head, nav#toc, section/h2/h3 with ids), since no spec page was recorded.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from functions.standards.app import lambda_handler
from scholar.core.catalogue import CallContext, QueuedResult
from scholar.core.errors import UNAVAILABLE, ScholarError, UnavailableError
from scholar.families.standards import conversion, service, texts
from scholar.families.standards.handlers import HANDLERS
from scholar.families.standards.spec import GetStandardInput, StandardResult
from scholar.services.pdftext.convert import PDF_EXTRACTION_FAILED
from scholar.store.tasks import TaskStore
from tests.fixtures_dir import fixtures_dir

CTX = CallContext(principal="tester", request_id="req-1")
NIST_PDF = "/nvlpubs/nistpubs/SpecialPublications/NIST.SP.800-53Ar5.pdf"
ETSI_PDF = "/etsi/deliver/etsi_en/303600_303699/303645/02.01.01_60/en_303645v020101p.pdf"
W3C_PAGE = "/w3c_www/TR/2025/REC-webrtc-20250313/"
NIST_KEY = "standards/text/nist-sp-800-53a-rev-5.builtin.md"
W3C_KEY = "standards/text/webrtc-2025-03-13.w3c-html.md"

# SYNTHETIC: a W3C Recommendation page in ReSpec's published markup (no spec page is among the recordings).
SYNTHETIC_W3C_SPEC = """<!DOCTYPE html>
<html lang="en" dir="ltr"><head><meta charset="utf-8"><title>WebRTC: Real-Time Communication in Browsers</title>
<style>body { color: black }</style><script>var respecConfig = {};</script></head>
<body class="h-entry"><div class="head">
<a class="logo" href="https://www.w3.org/"><img alt="W3C" height="48" src="https://www.w3.org/logo" width="72"></a>
<h1 id="title" class="title">WebRTC: Real-Time Communication in Browsers</h1>
<p id="w3c-state"><a href="https://www.w3.org/standards/types#REC">W3C Recommendation</a>
<time class="dt-published" datetime="2025-03-13">13 March 2025</time></p>
<details open=""><summary>More details about this document</summary><dl><dt>This version:</dt>
<dd><a href="https://www.w3.org/TR/2025/REC-webrtc-20250313/">https://www.w3.org/TR/2025/REC-webrtc-20250313/</a></dd>
<dt>Editors:</dt><dd>Jane Editor</dd></dl></details>
<p class="copyright"><a href="https://www.w3.org/policies/#copyright">Copyright</a> © 2025
World Wide Web Consortium.</p>
<hr title="Separator for header"></div>
<section id="abstract" class="introductory"><h2>Abstract</h2>
<p>This document defines a set of <a href="#dom-rtcpeerconnection">ECMAScript APIs</a> in WebIDL.</p></section>
<nav id="toc"><h2 class="introductory" id="table-of-contents">Table of Contents</h2><ol class="toc">
<li class="tocline"><a class="tocxref" href="#intro"><bdi class="secno">1. </bdi>Introduction</a></li></ol></nav>
<section id="intro" class="informative"><div class="header-wrapper"><h2 id="x1-introduction">
<bdi class="secno">1. </bdi>Introduction</h2><a class="self-link" href="#intro" aria-label="Permalink"></a></div>
<p><em>This section is non-normative.</em></p>
<p>The <code>RTCPeerConnection</code> interface lets a page:</p>
<ul><li>open a <strong>connection</strong> to a peer;</li><li>close it, with
<ol><li>a reason</li><li>a code</li></ol></li></ul>
<section id="interface-definition"><div class="header-wrapper"><h3 id="x1-1-interface-definition">
<bdi class="secno">1.1 </bdi>Interface Definition</h3><a class="self-link" href="#interface-definition"></a></div>
<pre class="idl"><code>[Exposed=Window]
interface RTCPeerConnection : EventTarget {
  undefined close();
};</code></pre>
<div class="note" role="note"><div role="heading" class="note-title marker" aria-level="4"><span>Note</span></div>
<p>Closing twice does nothing.</p></div>
<table class="simple"><thead><tr><th>Name</th><th>Type</th></tr></thead>
<tbody><tr><td><code>reason</code></td><td>DOMString</td></tr></tbody></table>
</section></section>
<p role="navigation" id="back-to-top"><a href="#title"><abbr title="Back to Top">↑</abbr></a></p>
<script src="https://www.w3.org/scripts/TR/2021/fixup.js"></script>
</body></html>
"""


class FixedHolder:
    """A catalogue holder that always has the fixture catalogue (the sync is tested elsewhere)."""

    pointer = None

    def __init__(self, catalogue) -> None:
        self._catalogue = catalogue

    def get(self):
        return self._catalogue

    def reset(self) -> None:
        pass  # the session's catalogue stays open for the other tests


def pdf(name: str) -> bytes:
    return (fixtures_dir() / "pdfs" / name).read_bytes()


def call(args: GetStandardInput, ctx: CallContext = CTX):
    return asyncio.run(HANDLERS["get_standard"](args, ctx))


def full_text(identifier: str, **kwargs) -> GetStandardInput:
    return GetStandardInput(identifier=identifier, fetch_full_text=True, **kwargs)


@pytest.fixture
def served(aws, upstream, env, fixture_catalogue):
    """moto + the fixture catalogue + upstream documents; ``started`` collects the background invocations."""
    env.set(SCHOLAR_RETRY_BUDGET_S="0")  # a served 5xx / 429 is final: no retry waits
    answers = {
        NIST_PDF: httpx.Response(
            200, content=pdf("arxiv_2501.10120v1_pasa.pdf"), headers={"content-type": "application/pdf"}
        ),
        ETSI_PDF: httpx.Response(
            200, content=pdf("arxiv_2304.02623v1_beyond_summarization.pdf"), headers={"content-type": "application/pdf"}
        ),
        W3C_PAGE: httpx.Response(200, text=SYNTHETIC_W3C_SPEC, headers={"content-type": "text/html; charset=utf-8"}),
    }
    requests: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request.url.path)
        return answers.get(request.url.path, httpx.Response(404, text="not served"))

    upstream.route().mock(side_effect=answer)
    started: list[dict] = []
    conversion.set_conversion_starter(started.append)
    service.set_holder(FixedHolder(fixture_catalogue))
    yield answers, requests, started
    conversion.set_conversion_starter(None)
    service.set_holder(None)


def run_background(payload: dict, lambda_context) -> dict:
    """What the asynchronous invocation does: the standards function receives the action."""
    return lambda_handler(payload, lambda_context)


def test_a_nist_pdf_not_converted_yet_answers_with_a_task_bound_to_the_caller(served):
    _answers, requests, started = served
    answer = call(full_text("NIST SP 800-53A Rev. 5"))
    assert isinstance(answer, QueuedResult)
    assert (answer.tool, answer.reason) == ("get_standard", conversion.REASON)
    task = TaskStore().get(answer.task_id, "tester")
    assert task is not None and task.status == "pending"
    assert TaskStore().get(answer.task_id, "someone-else") is None
    [payload] = started
    assert payload["action"] == conversion.ACTION and payload["task"]["task_id"] == answer.task_id
    assert requests == []  # nothing is downloaded on the caller's path


def test_the_background_conversion_gives_the_task_the_answer_a_direct_call_gives(served, aws, lambda_context):
    _answers, requests, started = served
    queued = call(full_text("NIST SP 800-53A Rev. 5", max_chars=5_000))
    [payload] = started
    assert run_background(payload, lambda_context) == {"task": "completed"}
    task = TaskStore().get(queued.task_id, "tester")
    assert task.status == "completed"
    # Once stored, the same call answers directly, and with exactly what the task holds.
    direct = call(full_text("NIST SP 800-53A Rev. 5", max_chars=5_000))
    assert isinstance(direct, StandardResult)
    assert task.result == direct.model_dump(mode="json", by_alias=True)
    assert direct.id == "NIST SP 800-53A Rev. 5"
    assert direct.full_text.startswith("<!-- page 1 -->") and "PaSa" in direct.full_text
    assert (direct.text_offset, direct.text_returned_chars, direct.next_offset) == (0, 5_000, 5_000)
    assert direct.text_truncated is True and direct.text_total_chars > 20_000
    assert requests == [NIST_PDF]  # downloaded once, by the background run


def test_later_pages_come_from_the_stored_text_and_the_record_stays_without_it(served, aws, lambda_context):
    _answers, requests, started = served
    call(full_text("NIST SP 800-53A Rev. 5"))
    run_background(started[0], lambda_context)
    stored = aws.s3.get_object(Bucket=aws.bucket, Key=NIST_KEY)
    assert stored["ContentType"].startswith("text/markdown")
    text = stored["Body"].read().decode()
    first = call(full_text("NIST SP 800-53A Rev. 5"))
    assert first.text_returned_chars == 20_000 and first.next_offset == 20_000
    pages = [first.full_text]
    offset = first.next_offset
    while offset is not None:
        nxt = call(full_text("NIST SP 800-53A Rev. 5", text_offset=offset))
        assert nxt.text_offset == offset and nxt.text_total_chars == len(text)
        pages.append(nxt.full_text)
        offset = nxt.next_offset
    assert "".join(pages) == text
    assert nxt.text_truncated is False
    whole = call(full_text("NIST SP 800-53A Rev. 5", max_chars=None))
    assert whole.full_text == text and whole.next_offset is None
    plain = call(GetStandardInput(identifier="NIST SP 800-53A Rev. 5"))
    assert plain.full_text is None and plain.text_total_chars is None
    assert len(requests) == 1 and len(started) == 1


def test_an_etsi_pdf_is_converted_the_same_way(served, lambda_context):
    _answers, requests, started = served
    queued = call(full_text("ETSI EN 303 645"))
    assert isinstance(queued, QueuedResult)
    run_background(started[0], lambda_context)
    result = TaskStore().get(queued.task_id, "tester").result
    assert result["id"] == "ETSI EN 303 645 V2.1.1 (2020-06)"
    assert result["full_text"].startswith("<!-- page 1 -->") and result["full_text_error"] is None
    assert requests == [ETSI_PDF]


def test_a_pdf_that_cannot_be_converted_completes_the_task_with_the_record_and_full_text_error(
    served, aws, lambda_context
):
    answers, _requests, started = served
    answers[ETSI_PDF] = httpx.Response(200, content=pdf("encrypted_user_password_2206.01062_page3.pdf"))
    queued = call(full_text("ETSI EN 303 645"))
    run_background(started[0], lambda_context)
    task = TaskStore().get(queued.task_id, "tester")
    assert task.status == "completed"
    assert task.result["identifier"] == "ETSI EN 303 645 V2.1.1 (2020-06)"
    assert task.result["full_text"] is None
    assert task.result["full_text_error"].startswith(PDF_EXTRACTION_FAILED)
    # Nothing was stored, so a later call tries again instead of serving the failure.
    assert aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="standards/text/").get("KeyCount") == 0
    assert isinstance(call(full_text("ETSI EN 303 645")), QueuedResult)


@pytest.mark.parametrize(
    ("response", "prefix"),
    [
        (httpx.Response(404, text="Not Found"), "not_found: nvlpubs has no full text of NIST SP 800-53A Rev. 5"),
        (httpx.Response(429, text="slow down"), "rate_limited: nvlpubs is rate limiting us"),
        (httpx.Response(503, text="busy"), "upstream_error: nvlpubs failed with HTTP 503"),
        (
            httpx.Response(200, text="<html>maintenance</html>", headers={"content-type": "text/html"}),
            "upstream_error: nvlpubs answered HTTP 200 with something other than a PDF (content-type: text/html)",
        ),
    ],
)
def test_a_failed_download_is_reported_in_full_text_error_by_kind(served, lambda_context, response, prefix):
    answers, _requests, started = served
    answers[NIST_PDF] = response
    queued = call(full_text("NIST SP 800-53A Rev. 5"))
    run_background(started[0], lambda_context)
    result = TaskStore().get(queued.task_id, "tester").result
    assert result["full_text"] is None and result["full_text_error"].startswith(prefix)
    assert result["id"] == "NIST SP 800-53A Rev. 5"


def test_a_w3c_page_converts_inline_and_is_stored_beside_the_record(served, aws):
    _answers, requests, started = served
    first = call(full_text("W3C webrtc", max_chars=200))
    assert isinstance(first, StandardResult) and started == []
    heading = "# WebRTC: Real-Time Communication in Browsers\n\nW3C Recommendation 13 March 2025\n\n## Abstract"
    assert first.full_text.startswith(heading)
    assert (first.text_returned_chars, first.next_offset, first.text_truncated) == (200, 200, True)
    rest = call(full_text("webrtc", text_offset=200, max_chars=None))
    text = aws.s3.get_object(Bucket=aws.bucket, Key=W3C_KEY)["Body"].read().decode()
    assert first.full_text + rest.full_text == text and rest.next_offset is None
    assert requests == [W3C_PAGE]  # the second page came from S3
    assert "Table of Contents" not in text and "Copyright" not in text and "Jane Editor" not in text
    assert "## 1. Introduction" in text and "### 1.1 Interface Definition" in text
    assert "```webidl\n[Exposed=Window]\ninterface RTCPeerConnection : EventTarget {" in text
    assert "- open a **connection** to a peer;\n- close it, with\n  1. a reason\n  2. a code" in text


def test_a_w3c_page_that_fails_still_returns_the_record(served):
    answers, _requests, _started = served
    answers[W3C_PAGE] = httpx.Response(429, text="slow down")
    result = call(full_text("W3C webrtc"))
    assert result.identifier == "W3C webrtc"
    assert result.full_text is None and result.full_text_error.startswith("rate_limited: w3c_www")


# SYNTHETIC: the generic "be right back" page a site serves with HTTP 200 during maintenance (none recorded).
SYNTHETIC_MAINTENANCE_PAGE = (
    "<!DOCTYPE html><html><head><title>W3C - Maintenance</title></head><body><h1>We'll be back shortly</h1>"
    "<p>The W3C website is undergoing maintenance. Please try again in a few minutes.</p></body></html>"
)


def test_a_w3c_maintenance_page_is_never_returned_or_kept_as_the_standards_text(served, aws):
    answers, requests, _started = served
    spec = answers[W3C_PAGE]
    answers[W3C_PAGE] = httpx.Response(200, text=SYNTHETIC_MAINTENANCE_PAGE, headers={"content-type": "text/html"})
    result = call(full_text("W3C webrtc"))
    assert result.full_text is None and result.full_text_error.startswith("not_a_specification")
    assert aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="standards/text/").get("KeyCount") == 0
    # The maintenance is over: the next call fetches the real page and stores its text.
    answers[W3C_PAGE] = spec
    assert call(full_text("W3C webrtc")).full_text.startswith("# WebRTC")
    assert requests == [W3C_PAGE, W3C_PAGE]


def test_a_standard_with_no_open_document_has_neither_text_nor_error(served):
    _answers, requests, started = served
    result = call(full_text("ISO 9001:2015"))
    assert result.full_text is None and result.full_text_error is None
    assert requests == [] and started == []


def test_a_background_invocation_that_cannot_start_fails_the_task(served):
    def refuse(payload: dict) -> None:
        raise UnavailableError("lambda invoke refused")

    conversion.set_conversion_starter(refuse)
    with pytest.raises(ScholarError) as err:
        call(full_text("NIST SP 800-53A Rev. 5"))
    assert err.value.code == UNAVAILABLE


def test_a_cancelled_task_is_left_alone_by_the_background_run(served, lambda_context):
    _answers, requests, started = served
    queued = call(full_text("NIST SP 800-53A Rev. 5"))
    TaskStore().transition(queued.task_id, "cancelled", allowed_from=("pending",))
    assert run_background(started[0], lambda_context) == {"task": "unchanged"}
    assert TaskStore().get(queued.task_id, "tester").status == "cancelled"
    assert requests == []


def test_a_call_already_inside_a_task_converts_a_pdf_inline(served):
    _answers, requests, started = served
    result = call(full_text("NIST SP 800-53A Rev. 5"), CallContext(principal="tester", request_id="r", task_id="t-1"))
    assert isinstance(result, StandardResult) and result.text_total_chars > 0
    assert started == [] and requests == [NIST_PDF]


def test_texts_are_keyed_by_the_normalised_record_id_and_converter(fixture_catalogue):
    record = fixture_catalogue.get("NIST SP 800-53A Rev. 5")
    assert texts.text_key(record, "builtin") == NIST_KEY
    assert Path(NIST_KEY).parent.as_posix() == texts.PREFIX


def test_the_local_stack_converts_on_a_background_thread_of_the_standards_function(served, env):
    import threading

    env.set(SCHOLAR_LOCAL_DISPATCH="1")
    conversion.set_conversion_starter(None)  # the default starter: no async Lambda invoke here, so a thread
    queued = call(full_text("ETSI EN 303 645"))
    assert isinstance(queued, QueuedResult)
    [worker] = [t for t in threading.enumerate() if t.name == "standards-async"]
    worker.join(timeout=120)
    assert not worker.is_alive()
    task = TaskStore().get(queued.task_id, "tester")
    assert task.status == "completed" and task.result["text_offset"] == 0
