"""Where web_fetch may connect: public addresses only, checked after DNS, pinned for the
connection.

A model that reads a hostile page can be told to fetch ``http://169.254.169.254/`` (cloud
credentials), a router's admin page or a local dev server. So every URL — and every
redirect hop — is resolved here, every address it resolves to must be public (not
loopback, private, link-local, shared, multicast, reserved, or an IPv4 address hidden in
an IPv6 one), and the connection then goes to the address that was checked, with the
original name as Host and TLS server name. A DNS answer that changes between the check
and the connection (rebinding) therefore changes nothing.

``[tools.web_fetch] allow_private = true`` turns the address check off; ``allow`` lists
host names, addresses or networks (CIDR) that may be private.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:  # only attributes of a URL are read here: no import at start-up
    import httpx

__all__ = [
    "BLOCKED_NETWORKS",
    "BlockedAddress",
    "FetchLimits",
    "Resolver",
    "Target",
    "check_url",
    "is_public",
    "system_resolver",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Host and port → the addresses to check (``getaddrinfo`` by default; tests inject one)."""

BLOCKED_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",  # "this network"; 0.0.0.0 reaches the local host on Linux
        "10.0.0.0/8",
        "100.64.0.0/10",  # carrier-grade NAT, and Alibaba Cloud's metadata service
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local: cloud metadata (169.254.169.254)
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128",
        "::1/128",
        "fc00::/7",  # unique local, AWS's IPv6 metadata (fd00:ec2::254)
        "fe80::/10",
        "ff00::/8",
    )
)
"""Named in the outside contract, plus the other ranges that never hold a public page."""


class BlockedAddress(Exception):
    """A URL (or a redirect) leads somewhere web_fetch must not go; the text says why."""


class FetchLimits(Struct, frozen=True):
    """How web_fetch may reach the network (from ``[tools.web_fetch]``)."""

    allow_private: bool = False
    allow: tuple[str, ...] = ()
    """Host names, addresses or CIDR networks that may be private."""
    timeout: float = 10.0
    """Seconds for one URL, every redirect and the whole body included."""
    max_bytes: int = 2_000_000
    max_total_bytes: int = 4_000_000
    """Bytes read of all the pages of one call together (up to 20 URLs)."""
    max_redirects: int = 5
    resolve: Resolver | None = None
    """None: the system resolver."""


class Target(Struct, frozen=True):
    """A checked URL and the address to connect to for it."""

    url: httpx.URL
    address: str


def _unwrap(ip: IPAddress) -> IPAddress:
    """The IPv4 address inside an IPv4-mapped, 6to4 or Teredo IPv6 address, else ``ip``."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is not None:
            return inner
        if ip in ipaddress.ip_network("64:ff9b::/96"):  # NAT64 carries an IPv4 address
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def is_public(address: str) -> bool:
    """Whether ``address`` is a public unicast address (zone ids ignored)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    ip = _unwrap(ip)
    if any(ip in net for net in BLOCKED_NETWORKS if net.version == ip.version):
        return False
    return ip.is_global


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``getaddrinfo`` gives for ``host`` (IPv4 and IPv6)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise BlockedAddress(f"cannot resolve {host}: {exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _allowed(host: str, addresses: list[str], allow: tuple[str, ...]) -> bool:
    """The host is listed by name, or every address lies in a listed address or network."""
    names = {a.lower().rstrip(".") for a in allow}
    if host in names:
        return True
    networks = []
    for entry in allow:
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            continue
    if not networks:
        return False

    def inside(address: str) -> bool:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        return any(ip in net for net in networks if net.version == ip.version)

    return all(inside(a) for a in addresses)


async def check_url(url: httpx.URL, limits: FetchLimits) -> Target:
    """The address to connect to for ``url``, or ``BlockedAddress`` saying why not."""
    if url.scheme not in ("http", "https"):
        raise BlockedAddress(f"only http and https URLs can be fetched, not {url.scheme or '?'}:")
    host = url.raw_host.decode("ascii").lower().rstrip(".")
    if not host:
        raise BlockedAddress(f"{url} has no host")
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        addresses = [str(ipaddress.ip_address(host.split("%", 1)[0]))]
    except ValueError:
        addresses = await (limits.resolve or system_resolver)(host, port)
    if not addresses:
        raise BlockedAddress(f"{host} resolves to no address")
    if not limits.allow_private and not _allowed(host, addresses, limits.allow):
        blocked = [a for a in addresses if not is_public(a)]
        if blocked:
            via = "" if blocked == [host] else f" ({host} resolves to {', '.join(blocked)})"
            raise BlockedAddress(
                f"{url} is refused: it leads to a private, loopback, link-local or metadata "
                f"address{via}. Allow it with [tools.web_fetch] allow_private = true or an "
                "allow list in the settings."
            )
    return Target(url, addresses[0])
