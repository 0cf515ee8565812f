"""The browser, through Playwright: the only package that imports it (an import-linter contract).

:class:`~runner.engine.browser.BrowserSession` holds one browser, context and page, reset between
tests; its verb families (page, element, network, storage, capture, studio) take and return plain data.
Playwright's async API runs on one event loop in its own thread (:mod:`runner.engine.loop`); the
page's routed requests go to the interception engine through :mod:`runner.engine.exchange`.
"""
