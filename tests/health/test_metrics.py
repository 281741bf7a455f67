"""Per-source Powertools metrics: one EMF blob per source and call, dimensions kept to service and source."""

import json

from scholar.services.health.metrics import count_write_failure, publish
from scholar.services.health.records import NO_SOURCE
from tests.health.synthetic import synthetic_call


def test_each_source_asked_gets_one_blob_with_its_figures(capsys):
    publish([synthetic_call("crossref", 0.0, status=503, attempts=2, latency_ms=900), synthetic_call(NO_SOURCE, 0.0)])
    (line,) = [json.loads(raw) for raw in capsys.readouterr().out.splitlines() if raw.startswith("{")]
    (directive,) = line["_aws"]["CloudWatchMetrics"]
    assert directive["Dimensions"] == [["source", "service"]]
    assert line["source"] == "crossref"
    figures = {name: line[name] for name in ("SourceRequests", "SourceFailures", "SourceServerErrors", "Failed")}
    assert figures == {"SourceRequests": [2.0], "SourceFailures": [2.0], "SourceServerErrors": [2.0], "Failed": [1.0]}
    assert line["SourceLatency"] == [900.0]


def test_a_failed_usage_write_is_one_blob_of_its_own_under_the_alarm_s_dimension(capsys):
    count_write_failure()  # the usage writer thread calls it: never through the handler's shared metrics
    (line,) = [json.loads(raw) for raw in capsys.readouterr().out.splitlines() if raw.startswith("{")]
    (directive,) = line["_aws"]["CloudWatchMetrics"]
    assert directive["Dimensions"] == [["service"]] and line["service"] == "scholar"
    assert line["UsageWriteFailed"] == [1.0]
