"""Requests runner sends to a server itself (aiohttp on the engine's loop), not through the page.

Two kinds of request go this way: those a ``clientCertificates`` entry matches (sent over TLS with
its certificate, ``client_certs.py``) and the CORS preflights a routed page makes that no route
answers (``preflights.py``). Both are sent as the page would send them: no cookie jar of runner's
own, redirects returned as they are unless asked to follow, the body decoded. A body is read
within :data:`~runner.net.bodies.MAX_READ_BODY_BYTES` once decompressed (:func:`read_capped`): a
1 MB gzip "bomb" would otherwise be a gigabyte in memory.
"""

from __future__ import annotations

import asyncio
import errno
import ssl
import zlib
from collections.abc import Mapping
from typing import Any

from runner.net import Headers, HttpResponse, UpstreamError
from runner.net.bodies import MAX_READ_BODY_BYTES

__all__ = ["BodyTooLarge", "DirectClient", "read_capped", "too_large_message"]

# Hop-by-hop and transport headers: aiohttp sets its own; the body it returns is decoded.
_NOT_SENT = frozenset({"host", "connection", "content-length", "transfer-encoding", "keep-alive",
                       "proxy-connection", "upgrade", "accept-encoding"})
_DECODED = "gzip, deflate"  # the content codings read_capped decodes
_NOT_RETURNED = frozenset({"content-encoding", "transfer-encoding", "connection", "keep-alive"})


class DirectClient:
    """One connection pool. ``tls`` is the TLS context servers are checked with (False: not
    checked, like every HTTPS request of runner's browser); ``tls_failure`` starts the message of
    a failed TLS handshake."""

    def __init__(self, tls: ssl.SSLContext | bool, tls_failure: str = "TLS failed") -> None:
        self._tls = tls
        self._tls_failure = tls_failure
        self._session: Any = None

    async def fetch(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                    timeout_ms: float, *, follow_redirect: bool) -> HttpResponse:
        """Send one request; raises :class:`UpstreamError` (``timed_out`` past ``timeout_ms``)."""
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=self._tls), cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False)  # read_capped decompresses, within MAX_READ_BODY_BYTES
        sent = {k: v for k, v in headers.items() if k.lower() not in _NOT_SENT}
        # Offer only what read_capped decodes: aiohttp's own default adds "br" when brotli is
        # importable and "zstd" on Python 3.14, and a server taking it at its word would answer
        # with a body runner then refuses to read.
        sent["accept-encoding"] = _DECODED
        try:
            async with self._session.request(
                method, _as_sent(url), headers=sent, data=body, allow_redirects=follow_redirect, max_redirects=20,
                timeout=aiohttp.ClientTimeout(total=max(timeout_ms, 1) / 1000),
            ) as response:
                data = await read_capped(response, method, url)
                # a repeated header is one value, joined by the rule of repeated headers
                received = Headers((key.lower(), value) for key, value in response.headers.items()
                                   if key.lower() not in _NOT_RETURNED)
                received["content-length"] = str(len(data))
                return HttpResponse(status=response.status, status_text=response.reason or "",
                                        headers=received.to_dict(), body=data, url=str(response.url))
        except TimeoutError as err:
            raise UpstreamError(f"no answer within {timeout_ms:g}ms", timed_out=True) from err
        except aiohttp.ClientSSLError as err:
            raise UpstreamError(f"{self._tls_failure}: {err}", timed_out=False) from err
        except (aiohttp.ClientError, OSError) as err:
            raise UpstreamError(_failure(err), timed_out=False) from err

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await asyncio.wait_for(session.close(), 5)


def _failure(err: BaseException) -> str:
    """Why no response came, in the words the original and Playwright's client use for a
    connection that failed (``connect ECONNREFUSED 127.0.0.1:1``: the errno's name, the host and
    port), else the error's type and message."""
    import aiohttp  # loaded already: the request was sent with it

    if isinstance(err, aiohttp.ClientConnectorError):
        code = errno.errorcode.get(err.os_error.errno or 0)
        if code is not None:
            return f"connect {code} {err.host}:{err.port} ({err.os_error.strerror or err})"
    return f"{type(err).__name__}: {err}"


def _as_sent(url: str) -> Any:
    """``url`` as the server is to get it: as a browser (and Playwright's client, WHATWG's URL)
    sends it. Its escapes stay as written: yarl's default would rewrite them (``%2C`` to ``,``,
    ``%3B`` to ``;``, ``%7E`` to ``~``), which breaks a signed URL and whatever compares raw URLs.
    What cannot travel as written (a space, a control character, ``é`` in a ``runner.request()``
    URL) is percent-encoded as UTF-8, a space as ``%20`` (yarl would write ``+`` in a query), as
    WHATWG's URL encodes it."""
    from urllib.parse import quote, urlsplit, urlunsplit

    from yarl import URL

    parts = urlsplit(url)
    if not parts.netloc.isascii():
        return URL(url)  # an international host name: yarl's IDNA encoding
    rest = [quote(piece, safe=_KEPT) for piece in (parts.path, parts.query, parts.fragment)]
    return URL(urlunsplit((parts.scheme, parts.netloc, *rest)), encoded=True)


# The printable ASCII characters but '"', '<' and '>' (which a browser encodes), "%" included:
# only the rest (a space, a control character, any non-ASCII) is encoded, so every URL a browser
# sends, and an escape already there, goes as it is.
_KEPT = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"<>')


class BodyTooLarge(UpstreamError):
    """A response body past ``MAX_READ_BODY_BYTES`` once decompressed: refused, not read."""


def too_large_message(method: str, url: str, encoding: str, limit: int = MAX_READ_BODY_BYTES) -> str:
    size = f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
    how = f" once decompressed (content-encoding {encoding})" if encoding else ""
    return (f"the response body of {method} {url} is larger than {size}{how}: runner reads at "
            f"most {size} of a body, and refused it")


async def read_capped(response: Any, method: str, url: str, limit: int = MAX_READ_BODY_BYTES) -> bytes:
    """The body of an aiohttp ``response`` (made with ``auto_decompress=False``), decompressed
    (gzip, deflate) and at most ``limit`` bytes. Raises :class:`UpstreamError` past ``limit``,
    for an encoding it cannot decode, and for a body that is not what its encoding says."""
    encoding = str(response.headers.get("content-encoding", "")).strip().lower()
    decoder: Any = None
    if encoding in ("gzip", "x-gzip"):
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        decoder = _Deflate()
    elif encoding not in ("", "identity"):
        raise UpstreamError(f"the response of {method} {url} has content-encoding {encoding!r}, which runner "
                            "cannot decode (it reads gzip and deflate)", timed_out=False)
    out = bytearray()
    try:
        async for chunk in response.content.iter_chunked(64 * 1024):
            if decoder is None:
                out += chunk
            else:
                pending = chunk
                while pending:  # never more than limit + 1 bytes out of one step
                    out += decoder.decompress(pending, limit + 1 - len(out))
                    pending = decoder.unconsumed_tail
                    if len(out) > limit:
                        break
            if len(out) > limit:
                raise BodyTooLarge(too_large_message(method, url, encoding, limit), timed_out=False)
        if decoder is not None:
            out += decoder.flush()
    except zlib.error as err:
        raise UpstreamError(f"the response of {method} {url} is not valid {encoding}: {err}", timed_out=False) from err
    if len(out) > limit:
        raise BodyTooLarge(too_large_message(method, url, encoding, limit), timed_out=False)
    return bytes(out)


class _Deflate:
    """``deflate`` as servers send it: zlib-wrapped, or (some servers) raw; told by the first bytes."""

    def __init__(self) -> None:
        self._inner: Any = None

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if self._inner is None:
            wrapped = len(data) >= 2 and (data[0] & 0x0F) == 8 and (data[0] * 256 + data[1]) % 31 == 0
            self._inner = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        result: bytes = self._inner.decompress(data, max_length)
        return result

    @property
    def unconsumed_tail(self) -> bytes:
        return self._inner.unconsumed_tail if self._inner is not None else b""

    def flush(self) -> bytes:
        return self._inner.flush() if self._inner is not None else b""
