"""The base-URL guard: in hosted mode a visitor's URL may not reach the Space's own network.

Refused in hosted mode: loopback, private (RFC 1918, CGNAT, ULA), link-local (including the
cloud metadata address 169.254.169.254), multicast, reserved and unspecified addresses, known
metadata host names, and any host with a name that resolves to one of those (every address it
resolves to is checked). Only ``http``/``https`` URLs without credentials are accepted in either
mode, and hosted mode requires ``https`` (the visitor's key travels with each request).

Local mode allows everything a local user can reach anyway (so tests can use local servers).
Known gap: a host name is resolved here and again by the HTTP client (DNS rebinding could
change the answer in between); the check still stops every literal address and plain name.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from upskill_hub.errors import UsageError

Resolver = Callable[[str, int], Sequence[str]]

#: Host names of cloud metadata services, refused whatever they resolve to.
METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.com",
    }
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")


class UnsafeURL(UsageError):
    """A base URL the Space refuses to call."""


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (IPv4 and IPv6)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(f"Base URL: cannot resolve host {host!r} ({exc})") from None
    return sorted({str(info[4][0]) for info in infos})


def blocked_reason(address: str) -> str | None:
    """Why ``address`` is off limits in hosted mode, or None when it is a public address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        mapped = ip.ipv4_mapped or ip.sixtofour
        if mapped is not None:
            return blocked_reason(str(mapped))
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (cloud metadata lives there)"
    if isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local:
        return "a site-local address (deprecated private IPv6 range fec0::/10)"
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "a shared (carrier-grade NAT) address"
    if ip.is_private:
        return "a private network address"
    if ip.is_reserved or not ip.is_global:
        return "a reserved address"
    return None


def _ip_literal(host: str) -> str | None:
    """``host`` as an IP address if it is one in any spelling C resolvers accept
    (``127.1``, ``2130706433``, ``0x7f.0.0.1``), else None."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    if ":" in host:
        return None
    try:
        return socket.inet_ntoa(socket.inet_aton(host))
    except (OSError, UnicodeError):
        return None


def ssrf_guarded_url(url: str, *, hosted: bool, resolver: Resolver | None = None) -> str:
    """``url`` stripped of surrounding spaces if the app may call it; :class:`UnsafeURL` if not."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURL(f"Base URL {text!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeURL(f"Base URL {text!r} must be an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise UnsafeURL("Base URL must not contain a user name or password; use the API key field")
    if not hosted:
        return text
    host = parts.hostname.rstrip(".").lower()
    if host in METADATA_HOSTS or host.endswith((".internal", ".local", ".localhost")):
        raise UnsafeURL(f"Base URL host {host!r} is an internal name; use a public API URL")
    if host == "localhost":
        raise UnsafeURL("Base URL points to localhost, which this Space cannot call")
    literal = _ip_literal(host)
    addresses = [literal] if literal else (resolver or system_resolver)(host, port or 443)
    if not addresses:
        raise UnsafeURL(f"Base URL host {host!r} resolves to no address")
    for address in addresses:
        reason = blocked_reason(address)
        if reason:
            raise UnsafeURL(
                f"Base URL {host!r} resolves to {reason} ({address}); "
                "this Space only calls public API servers"
            )
    if parts.scheme != "https":
        raise UnsafeURL("Base URL must use https:// on the hosted Space (your key is sent with it)")
    return text
