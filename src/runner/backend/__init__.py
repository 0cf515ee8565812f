"""The app's server's requests intercepted: runner's proxy (mitmproxy's core) and its flows
handed to the interception engine (docs/app-server.md)."""

from runner.backend.proxy import BackendProxy, ProxyError

__all__ = ["BackendProxy", "ProxyError"]
