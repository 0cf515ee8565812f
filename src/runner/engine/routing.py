"""What the page's route handler needs from the run, handed down to the browser once.

The run builds one :class:`RoutingTarget` and gives it to the :class:`BrowserSession` it creates,
as httpx hands a transport to its client; the route handler (``exchange.py``) reads nothing else
of the run. The page's URL comes from the browser itself.

This module imports neither Playwright nor ``runner.net``: building a target costs nothing, and
the interception engine is loaded only once a test intercepts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runner.engine.client_certs import ClientCertificate
    from runner.net import Interceptor

__all__ = ["RoutingTarget"]


@dataclass(frozen=True)
class RoutingTarget:
    """Where the page's requests go: blocked hosts are answered, the rest go to the interceptor.

    ``interceptor`` returns the run's interceptor, or None while no test has made one (asking
    must not make one). ``blocked`` says whether a URL's host is in the test's ``blockHosts``.
    ``certificate`` gives the ``clientCertificates`` entry a URL matches (None for most), and
    ``response_timeout_ms`` the current test's ``responseTimeout``; ``warn`` tells the running
    test's output what the page could not be told (a request that failed before any answer).
    """

    interceptor: Callable[[], Interceptor | None]
    blocked: Callable[[str], bool]
    certificate: Callable[[str], ClientCertificate | None] = lambda url: None
    response_timeout_ms: Callable[[], float] = lambda: 30000.0
    warn: Callable[[str], None] = lambda message: None
