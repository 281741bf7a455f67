"""The SSRF guard: schemes, resolved addresses (fake resolver: no socket is ever opened), allow-list."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Sequence

import pytest

from scholar.core.config_parts import parse_hosts
from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, ForbiddenError, InvalidArgumentError
from scholar.web.ssrf import (
    BLOCKED_ADDRESS,
    UNRESOLVABLE_HOST,
    blocked_reason,
    vet_url,
)


def resolver_for(table: dict[str, Sequence[str]]):
    async def resolve(host: str, port: int) -> Sequence[str]:
        if host not in table:
            raise OSError(f"no such host {host}")
        return table[host]

    return resolve


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.1.2.3", "loopback"),
        ("10.0.0.8", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "metadata"),
        ("169.254.1.1", "link_local"),
        ("fd00:ec2::254", "metadata"),
        ("100.100.100.200", "metadata"),
        ("100.64.0.1", "shared"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("fe80::1", "link_local"),
        ("fc00::1", "private"),
        ("224.0.0.251", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "private"),
        ("::ffff:127.0.0.1", "loopback (embedded in IPv6)"),
        ("::ffff:169.254.169.254", "metadata (embedded in IPv6)"),
        ("2002:a9fe:a9fe::", "metadata (embedded in IPv6)"),
        ("64:ff9b::10.0.0.1", "private (embedded in IPv6)"),
    ],
)
def test_internal_addresses_are_refused_with_their_class(address: str, reason: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) == reason


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:4700:4700::1111", "::ffff:93.184.216.34"])
def test_public_addresses_pass(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


def test_a_public_host_is_vetted_and_pinned_to_its_address() -> None:
    resolver = resolver_for({"files.example.org": ["93.184.216.34"]})
    target = asyncio.run(vet_url("https://Files.Example.org/a.pdf?x=1", resolver=resolver))
    assert target.host == "files.example.org"
    assert target.ip == "93.184.216.34"
    assert target.host_header == "files.example.org"
    assert str(target.pinned_url()) == "https://93.184.216.34/a.pdf?x=1"


def test_a_host_name_resolving_to_a_private_address_is_forbidden() -> None:
    with pytest.raises(ForbiddenError) as caught:
        resolver = resolver_for({"intranet.example.org": ["10.1.2.3"]})
        asyncio.run(vet_url("http://intranet.example.org/", resolver=resolver))
    assert caught.value.code == FORBIDDEN
    assert caught.value.reason == BLOCKED_ADDRESS
    assert caught.value.details["address_class"] == "private"


def test_one_internal_answer_among_public_ones_is_enough_to_refuse() -> None:
    answers = {"mixed.example.org": ["93.184.216.34", "169.254.169.254"]}
    with pytest.raises(ForbiddenError):
        asyncio.run(vet_url("https://mixed.example.org/", resolver=resolver_for(answers)))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/x.pdf",
        "http://[::1]/x.pdf",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
    ],
)
def test_literal_internal_addresses_are_refused_without_asking_dns(url: str) -> None:
    with pytest.raises(ForbiddenError):
        asyncio.run(vet_url(url, resolver=resolver_for({})))


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.org/a.pdf", "gopher://example.org/", "/relative.pdf"]
)
def test_only_http_and_https_urls_are_accepted(url: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        asyncio.run(vet_url(url, resolver=resolver_for({})))
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.field == "url"


def test_urls_with_credentials_are_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        resolver = resolver_for({"example.org": ["93.184.216.34"]})
        asyncio.run(vet_url("https://user:pw@example.org/a.pdf", resolver=resolver))


def test_a_host_that_does_not_resolve_is_forbidden_as_unresolvable() -> None:
    with pytest.raises(ForbiddenError) as caught:
        asyncio.run(vet_url("https://nowhere.invalid/", resolver=resolver_for({})))
    assert caught.value.reason == UNRESOLVABLE_HOST


def test_the_test_allow_list_admits_exactly_the_listed_host_and_port() -> None:
    allow = parse_hosts(" 127.0.0.1:8765 , Localhost ")
    assert allow == frozenset({"127.0.0.1:8765", "localhost"})
    target = asyncio.run(vet_url("http://127.0.0.1:8765/a.pdf", allow_hosts=allow))
    assert target.allow_listed and target.ip == "127.0.0.1" and target.host_header == "127.0.0.1:8765"
    with pytest.raises(ForbiddenError):
        asyncio.run(vet_url("http://127.0.0.1:9999/a.pdf", allow_hosts=allow))


def test_the_allow_list_is_empty_by_default() -> None:
    assert parse_hosts(None) == frozenset()
    assert parse_hosts("") == frozenset()
