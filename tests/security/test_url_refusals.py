"""The URL rule: a caller's URL is refused at once, before any work is queued, whatever spelling its host uses.

No socket is opened to anything: hosts that are addresses are parsed (never resolved), names go through a
fake resolver, and the refusal comes before the task table or the state machine is touched.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, ScholarError
from scholar.runtime.family import run_tool
from scholar.runtime.invocation import Invocation
from scholar.web import fetch
from scholar.web.ssrf import BLOCKED_ADDRESS, UNRESOLVABLE_HOST, inet_aton, vet_url

NAMES = {
    "public.example.org": ["93.184.216.34"],
    "intranet.example.org": ["10.1.2.3"],
    "metadata.example.org": ["169.254.169.254"],
    "mixed.example.org": ["93.184.216.34", "192.168.0.7"],
    "mapped.example.org": ["::ffff:127.0.0.1"],
}
asked: list[str] = []


async def fake_resolver(host: str, port: int) -> Sequence[str]:
    asked.append(host)
    if host not in NAMES:
        raise OSError(f"no such host {host}")
    return NAMES[host]


@pytest.fixture
def queue(aws, env) -> Iterator[Any]:
    """moto with a PDF state machine; the fake resolver stands in for DNS."""
    sfn = aws.client("stepfunctions")
    definition = {"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}
    arn = sfn.create_state_machine(name="pdf-pipeline", definition=json.dumps(definition),
                                   roleArn="arn:aws:iam::123456789012:role/x")["stateMachineArn"]
    env(SCHOLAR_PDF_STATE_MACHINE_ARN=arn)
    fetch.set_web_access(fetch.WebAccess(resolver=fake_resolver))
    asked.clear()
    yield aws, sfn, arn
    fetch.set_web_access(None)


def _fetch_by_url(url: str) -> dict[str, Any]:
    invocation = Invocation(tool="fetch_pdf_by_url", arguments={"url": url}, principal="key-1")
    return asyncio.run(run_tool("pdf", invocation))


def _nothing_queued(aws: Any, sfn: Any, arn: str) -> bool:
    tasks = aws.dynamodb.scan(TableName=aws.task_table)["Items"]
    return tasks == [] and sfn.list_executions(stateMachineArn=arn)["executions"] == []


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost/a.pdf",
        "http://LOCALHOST:8080/a.pdf",
        "http://files.localhost/a.pdf",
        "http://127.1/a.pdf",
        "http://2130706433/a.pdf",
        "http://0x7f.1/a.pdf",
        "http://0x7f000001/a.pdf",
        "http://0/a.pdf",
        "http://169.254.43518/latest/meta-data",  # 169.254.169.254 in two parts
        "http://10.1/a.pdf",
        "http://[::ffff:127.0.0.1]/a.pdf",
        "http://intranet.example.org/a.pdf",
        "http://metadata.example.org/latest/meta-data",
        "http://mixed.example.org/a.pdf",
        "http://mapped.example.org/a.pdf",
    ],
)
def test_an_internal_host_in_any_spelling_is_forbidden_before_anything_is_queued(queue, url: str) -> None:
    aws, sfn, arn = queue
    with pytest.raises(ScholarError) as caught:
        _fetch_by_url(url)
    assert caught.value.code == FORBIDDEN
    assert caught.value.reason == BLOCKED_ADDRESS
    assert _nothing_queued(aws, sfn, arn)


@pytest.mark.parametrize("url", ["http://localhost/a.pdf", "http://127.1/a.pdf", "http://2130706433/a.pdf"])
def test_a_host_that_is_an_address_is_never_handed_to_the_resolver(queue, url: str) -> None:
    with pytest.raises(ScholarError) as caught:
        _fetch_by_url(url)
    assert (caught.value.code, caught.value.reason) == (FORBIDDEN, BLOCKED_ADDRESS)
    assert asked == []


def test_a_dotted_quad_with_octal_parts_is_refused_at_once(queue) -> None:
    aws, sfn, arn = queue
    with pytest.raises(ScholarError) as caught:
        _fetch_by_url("http://0177.0.0.1/a.pdf")  # httpx refuses the URL itself; the socket layer reads 127.0.0.1
    assert caught.value.code == INVALID_ARGUMENT
    assert _nothing_queued(aws, sfn, arn)


def test_a_name_that_does_not_resolve_is_forbidden_at_once(queue) -> None:
    aws, sfn, arn = queue
    with pytest.raises(ScholarError) as caught:
        _fetch_by_url("https://nowhere.example.org/a.pdf")
    assert caught.value.code == FORBIDDEN
    assert caught.value.reason == UNRESOLVABLE_HOST
    assert _nothing_queued(aws, sfn, arn)


def test_a_public_name_is_queued(queue) -> None:
    aws, sfn, arn = queue
    answer = _fetch_by_url("https://public.example.org/a.pdf")
    assert answer["queued"] is True
    assert asked == ["public.example.org"]


@pytest.mark.parametrize("host", ["127.1", "2130706433", "0x7f.1", "localhost"])
def test_every_hop_of_the_pipeline_still_refuses_them(host: str) -> None:
    async def lying_resolver(name: str, port: int) -> Sequence[str]:
        return ["93.184.216.34"]  # a resolver that would call every name public must not be asked

    with pytest.raises(ScholarError) as caught:
        asyncio.run(vet_url(f"http://{host}/a.pdf", resolver=lying_resolver))
    assert caught.value.code == FORBIDDEN


@pytest.mark.parametrize(
    ("spelling", "address"),
    [("127.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"),
     ("0X7F.0.0.1", "127.0.0.1"), ("169.254.43518", "169.254.169.254"), ("4294967295", "255.255.255.255"),
     ("1.2.3.4", "1.2.3.4")],
)
def test_ipv4_spellings_are_read_as_inet_aton_reads_them(spelling: str, address: str) -> None:
    assert inet_aton(spelling) == ipaddress.IPv4Address(address)


@pytest.mark.parametrize("name", ["example.org", "256.1", "1.16777216", "08.1", "1..2", "4294967296", "a.1", "0x100.1"])
def test_names_and_impossible_spellings_are_not_addresses(name: str) -> None:
    assert inet_aton(name) is None
