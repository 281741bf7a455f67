"""SSRF guard for fetching caller-supplied URLs: vet the scheme and every resolved address.

Only http and https; the host is resolved and refused when any of its addresses is private,
loopback, link-local, multicast, reserved, unspecified, shared (CGNAT), a cloud metadata address, or
an IPv6 form that embeds one of those (IPv4-mapped, 6to4, Teredo, NAT64). The caller then connects
to the vetted address itself (``VettedTarget.ip``), so a second DNS answer cannot swap in another
address (DNS rebinding). Redirects must be vetted again, hop by hop (``scholar.web.download``).

A host is an address whenever the socket layer would take it as one: every IPv4 spelling inet_aton
accepts (``127.1``, ``2130706433``, ``0x7f.1``, ``0177.0.0.1``) is parsed here, never handed to a
resolver; ``localhost`` and ``*.localhost`` are loopback by definition (RFC 6761). Tools vet a caller's
URL this way before they queue any work (``vet_url`` with the injected resolver), not only when fetching.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass

import httpx

from scholar.core.errors import ForbiddenError, InvalidArgumentError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

BLOCKED_ADDRESS = "blocked_address"
UNSUPPORTED_URL = "unsupported_url"
UNRESOLVABLE_HOST = "unresolvable_host"

_METADATA = {
    ipaddress.ip_address("169.254.169.254"): "metadata",  # AWS, GCP, Azure, OpenStack
    ipaddress.ip_address("fd00:ec2::254"): "metadata",  # AWS IMDS over IPv6
    ipaddress.ip_address("100.100.100.200"): "metadata",  # Alibaba Cloud
    ipaddress.ip_address("169.254.170.2"): "metadata",  # ECS task credentials
}
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SHARED = ipaddress.ip_network("100.64.0.0/10")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class VettedTarget:
    """A URL whose host resolved only to public addresses; connect to ``ip``, send ``host``."""

    url: httpx.URL
    scheme: str
    host: str
    port: int
    ip: str
    allow_listed: bool = False

    @property
    def host_header(self) -> str:
        """The Host header value (the port only when it is not the scheme's default)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    def pinned_url(self) -> httpx.URL:
        """The same URL with the host replaced by the vetted address."""
        return self.url.copy_with(host=self.ip)


def blocked_reason(address: IPAddress) -> str | None:
    """Why an address must not be fetched (``"loopback"``, ``"private"``, …), or None if it is public."""
    if address in _METADATA:
        return _METADATA[address]
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            inner = blocked_reason(embedded)
            if inner is not None:
                return f"{inner} (embedded in IPv6)"
            if address.ipv4_mapped is not None:
                return None
    checks = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link_local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
        ("shared", isinstance(address, ipaddress.IPv4Address) and address in _SHARED),
        ("site_local", isinstance(address, ipaddress.IPv6Address) and address.is_site_local),
    )
    for name, hit in checks:
        if hit:
            return name
    if not address.is_global:
        return "not_global"
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _allow_listed(host: str, port: int, allow_hosts: Collection[str]) -> bool:
    return host in allow_hosts or f"{host}:{port}" in allow_hosts or f"[{host}]:{port}" in allow_hosts


def parse_url(url: str | httpx.URL) -> tuple[httpx.URL, str, str, int]:
    """Check that a URL is absolute http(s) without credentials; return (url, scheme, host, port).

    Raises:
        InvalidArgumentError: another scheme, no host, credentials in the URL, or unparsable.
    """
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise InvalidArgumentError(f"not a valid URL: {exc}", field="url", reason=UNSUPPORTED_URL) from exc
    scheme = parsed.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise InvalidArgumentError(
            f"only http and https URLs can be fetched, not {scheme or 'a relative URL'!r}",
            field="url",
            reason=UNSUPPORTED_URL,
        )
    if not parsed.host:
        raise InvalidArgumentError("the URL has no host", field="url", reason=UNSUPPORTED_URL)
    if parsed.userinfo:
        raise InvalidArgumentError(
            "URLs with credentials (user:password@) are not fetched", field="url", reason=UNSUPPORTED_URL
        )
    return parsed, scheme, parsed.host.lower().rstrip("."), parsed.port or _DEFAULT_PORTS[scheme]


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve a host name with the system resolver (all A and AAAA answers)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def vet_url(
    url: str | httpx.URL,
    *,
    resolver: Resolver | None = None,
    allow_hosts: Collection[str] = frozenset(),
    allow_private: bool = False,
) -> VettedTarget:
    """Vet one URL (one hop): scheme, host, and every address the host resolves to.

    Args:
        url: the URL to fetch.
        resolver: ``async (host, port) -> [ip, ...]``; tests inject a fake so no socket is opened.
        allow_hosts: ``host`` or ``host:port`` entries exempt from the address check (test-only
            setting; off by default).
        allow_private: skip the address check entirely (only for URLs we built ourselves).

    Returns:
        The target with the address to connect to.

    Raises:
        InvalidArgumentError: not an http(s) URL.
        ForbiddenError: the host resolves to a refused address (reason ``blocked_address``) or does
            not resolve (reason ``unresolvable_host``).
    """
    parsed, scheme, host, port = parse_url(url)
    listed = _allow_listed(host, port, allow_hosts)
    literal = _literal_ip(host)
    if literal is not None:
        addresses = [literal]
    elif _is_localhost(host):
        addresses = [ipaddress.ip_address("127.0.0.1")]  # never resolved: loopback by definition (RFC 6761)
    else:
        try:
            answers = await (resolver or system_resolver)(host, port)
        except (OSError, UnicodeError) as exc:
            raise ForbiddenError(
                f"the host {host!r} does not resolve", reason=UNRESOLVABLE_HOST, details={"host": host}
            ) from exc
        addresses = []
        for answer in answers:
            parsed_ip = _literal_ip(answer.split("%", 1)[0])
            if parsed_ip is not None:
                addresses.append(parsed_ip)
        if not addresses:
            raise ForbiddenError(
                f"the host {host!r} does not resolve", reason=UNRESOLVABLE_HOST, details={"host": host}
            )
    if not (listed or allow_private):
        for address in addresses:
            reason = blocked_reason(address)
            if reason is not None:
                raise ForbiddenError(
                    f"refused to fetch {host!r}: it resolves to a {reason.replace('_', '-')} address",
                    reason=BLOCKED_ADDRESS,
                    details={"host": host, "address_class": reason},
                    hint="Only public http(s) URLs can be fetched; use the paper's public PDF link.",
                )
    first = addresses[0]
    if isinstance(first, ipaddress.IPv6Address) and first.ipv4_mapped is not None:
        first = first.ipv4_mapped
    return VettedTarget(url=parsed, scheme=scheme, host=host, port=port, ip=str(first), allow_listed=listed)


def _literal_ip(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return inet_aton(host)


_IPV4_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$")


def inet_aton(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address ``host`` spells the way inet_aton(3) reads it, or None for a name.

    One to four dot-separated parts, each decimal, octal (leading 0) or hex (0x); the last part fills
    the remaining bytes: ``127.1`` is 127.0.0.1, ``2130706433`` and ``0x7f000001`` too, ``0x7f.1`` as well.
    """
    parts = host.rstrip(".").split(".") if host else []
    if not 1 <= len(parts) <= 4 or not all(_IPV4_PART.match(p) for p in parts):
        return None
    values = [int(p[2:] or "0", 16) if p[:2].lower() == "0x" else int(p, 8) if p.startswith("0") else int(p)
              for p in parts]
    *leading, last = values
    if any(v > 0xFF for v in leading) or last >= 1 << (8 * (4 - len(leading))):
        return None
    number = 0
    for value in leading:
        number = number << 8 | value
    return ipaddress.IPv4Address(number << (8 * (4 - len(leading))) | last)


def _is_localhost(host: str) -> bool:
    return host == "localhost" or host.endswith(".localhost")
