"""Requests runner sends to a server itself (aiohttp on the engine's loop), not through the page.

Two kinds of request go this way: those a ``clientCertificates`` entry matches (sent over TLS with
its certificate, ``client_certs.py``) and the CORS preflights a routed page makes that no route
answers (``preflights.py``). Both are sent as the page would send them: no cookie jar of runner's
own, redirects returned as they are unless asked to follow, the body decoded.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from typing import Any

from runner.net import UpstreamError, UpstreamResponse

__all__ = ["DirectClient"]

# Hop-by-hop and transport headers: aiohttp sets its own; the body it returns is decoded.
_NOT_SENT = frozenset({"host", "connection", "content-length", "transfer-encoding", "keep-alive",
                       "proxy-connection", "upgrade", "accept-encoding"})
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
                    timeout_ms: float, *, follow_redirect: bool) -> UpstreamResponse:
        """Send one request; raises :class:`UpstreamError` (``timed_out`` past ``timeout_ms``)."""
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=self._tls), cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=True)
        sent = {k: v for k, v in headers.items() if k.lower() not in _NOT_SENT}
        try:
            async with self._session.request(
                method, url, headers=sent, data=body, allow_redirects=follow_redirect, max_redirects=20,
                timeout=aiohttp.ClientTimeout(total=max(timeout_ms, 1) / 1000),
            ) as response:
                data = await response.read()
                received: dict[str, str] = {}
                for key, value in response.headers.items():
                    name = key.lower()
                    if name in _NOT_RETURNED:
                        continue
                    # several Set-Cookie lines travel as one value split by newlines (Playwright's rule)
                    received[name] = f"{received[name]}\n{value}" if name in received else value
                received["content-length"] = str(len(data))
                return UpstreamResponse(status=response.status, status_text=response.reason or "",
                                        headers=received, body=data, url=str(response.url))
        except TimeoutError as err:
            raise UpstreamError(f"no answer within {timeout_ms:g}ms", timed_out=True) from err
        except aiohttp.ClientSSLError as err:
            raise UpstreamError(f"{self._tls_failure}: {err}", timed_out=False) from err
        except (aiohttp.ClientError, OSError) as err:
            raise UpstreamError(f"{type(err).__name__}: {err}", timed_out=False) from err

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await asyncio.wait_for(session.close(), 5)
