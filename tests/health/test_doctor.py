"""The doctor on synthetic histories: each finding, its evidence, and "not enough history"."""

from __future__ import annotations

import pytest

from scholar.services.health import doctor
from scholar.services.health.doctor import diagnose
from scholar.services.health.summary import LATENCY_BOUNDS_MS, Summary
from tests.health.synthetic import synthetic_call, synthetic_history

NOW = 1_796_000_000.0


def recent(source: str, n: int = 6, **kwargs) -> Summary:
    return Summary.of(synthetic_call(source, NOW - 60 * (i + 1), **kwargs) for i in range(n))


def healthy_history(source: str, **kwargs) -> Summary:
    return Summary.of(synthetic_history(source, NOW, **kwargs))


def kinds(findings) -> list[str]:
    return [f.kind for f in findings]


def test_a_healthy_source_has_no_findings():
    assert diagnose("s2", recent("s2"), healthy_history("s2")) == []


def test_a_source_that_starts_failing_is_named_with_its_error_mix():
    calls = [synthetic_call("crossref", NOW - 60 * i, status=503) for i in range(1, 4)]
    calls += [synthetic_call("crossref", NOW - 60 * i) for i in range(4, 7)]
    (finding,) = diagnose("crossref", Summary.of(calls), healthy_history("crossref"))
    assert finding.kind == "started_failing"
    assert finding.evidence["recent_failure_share"] == 0.5
    assert finding.evidence["usual_failure_share"] == 0.0
    assert finding.evidence["recent_errors"] == "503×3"


def test_a_source_with_no_successful_answer_went_quiet():
    (finding,) = diagnose("openalex", recent("openalex", status="timeout"), healthy_history("openalex"))
    assert finding.kind == "went_quiet"
    assert finding.evidence["usual_success_rate"] == 1.0


def test_a_source_that_always_fails_a_little_is_not_failing_at_its_usual_rate():
    history = [synthetic_call("europepmc", NOW - 7200 - i * 900, status=503 if i % 3 == 0 else 200) for i in range(96)]
    calls = [synthetic_call("europepmc", NOW - 60 * i, status=503 if i % 3 == 0 else 200) for i in range(1, 7)]
    assert diagnose("europepmc", Summary.of(calls), Summary.of(history)) == []


def test_a_source_that_lost_its_abstracts_is_named():
    history = healthy_history("s2", records=10, missing_abstracts=1)
    (finding,) = diagnose("s2", recent("s2", records=10, missing_abstracts=8), history)
    assert finding.kind == "lost_abstracts"
    assert (finding.evidence["recent_missing_share"], finding.evidence["usual_missing_share"]) == (0.8, 0.1)


def test_abstracts_are_not_judged_on_too_few_records():
    history = healthy_history("s2", records=10, missing_abstracts=1)
    few = Summary.of([synthetic_call("s2", NOW - 60 * i, records=1, missing_abstracts=1) for i in range(1, 6)])
    assert diagnose("s2", few, history) == []


def test_a_source_that_slowed_is_named_with_both_p95s():
    (finding,) = diagnose(
        "arxiv_api", recent("arxiv_api", latency_ms=4000), healthy_history("arxiv_api", latency_ms=400)
    )
    assert finding.kind == "slowed"
    assert finding.evidence == {"recent_p95_ms": 5000, "usual_p95_ms": 500}


def test_a_bucket_up_is_not_slowed():
    assert diagnose("w3c", recent("w3c", latency_ms=600), healthy_history("w3c", latency_ms=400)) == []


def test_a_source_answering_429_to_a_quarter_of_requests_is_throttled_not_failing():
    calls = [synthetic_call("s2", NOW - 60 * i, status=429) for i in range(1, 3)]
    calls += [synthetic_call("s2", NOW - 60 * i) for i in range(3, 9)]
    (finding,) = diagnose("s2", Summary.of(calls), healthy_history("s2"))
    assert finding.kind == "throttled"
    assert finding.evidence["recent_429_share"] == 0.25


@pytest.mark.parametrize(("hours", "per_hour"), [(2, 20), (20, 0), (5, 3)])
def test_thin_history_says_so_instead_of_guessing(hours, per_hour):
    history = healthy_history("inspire", hours=hours, per_hour=per_hour)
    (finding,) = diagnose("inspire", recent("inspire", status=503), history)
    assert finding.kind == "not_enough_history"
    assert finding.evidence["history_calls"] == hours * per_hour
    assert finding.evidence["recent_failure_share"] == 1.0


def test_a_single_failed_probe_is_not_a_finding():
    one = Summary.of([synthetic_call("nist", NOW - 60, status=503)])
    assert one.requests < doctor.MIN_RECENT_REQUESTS
    assert diagnose("nist", one, healthy_history("nist")) == []


def test_summaries_merge_exactly_and_report_bucket_percentiles():
    a = Summary.of([synthetic_call("s2", NOW - 60, latency_ms=40), synthetic_call("s2", NOW - 4000, status=503)])
    b = Summary.of([synthetic_call("s2", NOW - 8000, latency_ms=2500)])
    both = a.merge(b)
    assert (both.calls, both.answered, both.failures, both.hours) == (3, 2, 1, 3)
    assert both.errors == {"503": 1}
    assert both.percentile_ms(0.5) == 200  # the 503 call's 120 ms falls in the 200 ms bucket
    assert both.percentile_ms(0.95) == 3000
    assert len(both.latency) == len(LATENCY_BOUNDS_MS) + 1
    assert (
        Summary.of([a_ := synthetic_call("s2", NOW)]).model_dump()
        == Summary.model_validate(Summary.of([a_]).model_dump(mode="json")).model_dump()
    )
