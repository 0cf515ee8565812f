"""``clientCertificates``: the requests whose URL an entry matches go to the server through runner,
over TLS with that entry's certificate, and the server is verified against the entry's ``ca``.

Chromium (and Playwright's own option) can only tie a client certificate to a whole origin and
knows nothing of a project's CA files. To honour an entry's URL glob to the path (a certificate
for ``https://api.test/secure/**`` is not sent to ``/public``), host globs
(``https://*.corp.test/**``) and its ``ca``, runner sends a matching request itself (aiohttp, on
the engine's loop, one connection pool per entry, ``direct_fetch.py``) and gives the page the answer. Requests that no
entry matches go out as they always do.

With ``ca`` the server's certificate must chain to one of those files (and name the host);
without it the server is not verified, like every HTTPS request of the page. Matching follows
the original: the entry's URL is split into scheme, host, port and path; the
host and the path are minimatch globs (a URL without a path matches every path), the port must be
the same (the scheme's default when left out).
"""

from __future__ import annotations

import ssl
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from runner.engine.direct_fetch import DirectClient
from runner.match import compile_pattern
from runner.net import HttpResponse

__all__ = ["CertificateError", "ClientCertificate", "load_client_certificates", "certificate_for"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


class CertificateError(ValueError):
    """An entry of ``clientCertificates`` cannot be used (its message names it and why)."""


@dataclass
class ClientCertificate:
    """One ``clientCertificates`` entry, ready: its URL's parts and its TLS context."""

    index: int
    url: str
    scheme: str
    host: Callable[[str], bool]
    port: int | None
    path: Callable[[str], bool] | None  # None: every path
    context: ssl.SSLContext
    _client: DirectClient | None = field(default=None, repr=False)

    def matches(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme != self.scheme or not parts.hostname or not self.host(parts.hostname):
            return False
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
        if port != self.port:
            return False
        return self.path is None or self.path(parts.path or "/")

    async def fetch(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None,
                    timeout_ms: float, *, follow_redirect: bool) -> HttpResponse:
        """Send one request with this certificate; raises :class:`UpstreamError`."""
        if self._client is None:
            self._client = DirectClient(
                self.context, f"TLS with the client certificate of clientCertificates[{self.index}] failed")
        return await self._client.fetch(method, url, headers, body, timeout_ms, follow_redirect=follow_redirect)

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()


def certificate_for(certificates: Sequence[ClientCertificate], url: str) -> ClientCertificate | None:
    """The first entry whose URL matches ``url``, else None."""
    for certificate in certificates:
        if certificate.matches(url):
            return certificate
    return None


def load_client_certificates(entries: Sequence[Mapping[str, Any]]) -> list[ClientCertificate]:
    """Build the entries (paths already absolute): every file is read now, so a missing or
    unreadable certificate, key, pfx, passphrase or CA file is one clear error before any test.
    Raises :class:`CertificateError`."""
    out = []
    for index, entry in enumerate(entries):
        where = f"clientCertificates[{index}]"
        url = str(entry["url"])
        parts = urlsplit(url)
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise CertificateError(
                f"{where}.url {url!r} cannot be used: expected a URL with its scheme and host, "
                "globs allowed in the host and the path (e.g. 'https://*.corp.test/secure/**').")
        try:
            port = parts.port or _DEFAULT_PORTS[parts.scheme]
        except ValueError as err:
            raise CertificateError(f"{where}.url {url!r} has a port that is not a number.") from err
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
        if not entry.get("ca"):
            # Without a CA the server is not verified, like every other HTTPS request of the page
            # (runner's browser ignores certificate errors, as the original does).
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        for ca in entry.get("ca") or []:
            _check_file(ca, f"{where}.ca")
            try:
                context.load_verify_locations(cafile=str(ca))
            except (ssl.SSLError, ValueError) as err:
                raise CertificateError(f"{where}.ca: {str(ca)!r} is not a PEM certificate file: {err}.") from err
        certs = list(entry.get("certs") or [])
        if not certs:
            raise CertificateError(f"{where}.certs is empty: expected one certificate (cert and key, or pfx).")
        kinds: dict[str, int] = {}
        for number, cert in enumerate(certs):
            kind = _load_certificate(context, cert, f"{where}.certs[{number}]")
            if kind in kinds:
                raise CertificateError(
                    f"{where}.certs[{number}] is a second {kind} certificate (the first is "
                    f"{where}.certs[{kinds[kind]}]): a TLS client holds one certificate of each key type "
                    "(RSA, EC, Ed25519, ...) and offers the one the server accepts, so it could never be sent. "
                    "Expected at most one certificate per key type in an entry.")
            kinds[kind] = number
        path = parts.path
        out.append(ClientCertificate(
            index=index, url=url, scheme=parts.scheme, host=compile_pattern(parts.hostname, {"nocase": True}),
            port=port, path=compile_pattern(path, {"dot": True}) if path not in ("", "/**") else None,
            context=context))
    return out


def _check_file(path: Any, where: str) -> None:
    if not Path(path).is_file():
        raise CertificateError(f"{where}: the file {str(path)!r} does not exist (paths are relative to "
                               "the project root).")


def _passphrase(cert: Mapping[str, Any], where: str) -> str | None:
    file = cert.get("passphrase")
    if not file:
        return None
    _check_file(file, f"{where}.passphrase")
    try:
        return Path(file).read_text(encoding="utf-8").strip()
    except OSError as err:
        raise CertificateError(f"{where}.passphrase {str(file)!r} cannot be read: {err.strerror}.") from err


def _load_certificate(context: ssl.SSLContext, cert: Mapping[str, Any], where: str) -> str:
    """Add one certificate and its key to ``context``; returns its key type (``"RSA"``, ``"EC"``...)."""
    passphrase = _passphrase(cert, where)
    if "pfx" in cert:
        _check_file(cert["pfx"], f"{where}.pfx")
        pem_cert, pem_key = _pfx_to_pem(Path(cert["pfx"]), passphrase, where)
        with tempfile.TemporaryDirectory(prefix="runner-cert-") as folder:
            cert_file, key_file = Path(folder) / "cert.pem", Path(folder) / "key.pem"
            cert_file.write_bytes(pem_cert)
            key_file.write_bytes(pem_key)
            key_file.chmod(0o600)
            context.load_cert_chain(cert_file, key_file)
        return _key_type(pem_cert)
    _check_file(cert["cert"], f"{where}.cert")
    _check_file(cert["key"], f"{where}.key")
    try:
        context.load_cert_chain(str(cert["cert"]), str(cert["key"]), password=passphrase)
    except (ssl.SSLError, ValueError) as err:
        raise CertificateError(
            f"{where}: the certificate {str(cert['cert'])!r} and key {str(cert['key'])!r} could not be "
            f"loaded: {err}. Expected PEM files that belong together (and the key's passphrase file, "
            "when it has one).") from err
    return _key_type(Path(cert["cert"]).read_bytes())


def _key_type(pem: bytes) -> str:
    """The key type of the first certificate in ``pem`` (OpenSSL has already read it)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa

    key = x509.load_pem_x509_certificate(pem).public_key()
    for kind, name in ((rsa.RSAPublicKey, "RSA"), (ec.EllipticCurvePublicKey, "EC"), (dsa.DSAPublicKey, "DSA"),
                       (ed25519.Ed25519PublicKey, "Ed25519"), (ed448.Ed448PublicKey, "Ed448")):
        if isinstance(key, kind):
            return name
    return type(key).__name__


def _pfx_to_pem(path: Path, passphrase: str | None, where: str) -> tuple[bytes, bytes]:
    try:
        from cryptography.hazmat.primitives.serialization import (
            Encoding,
            NoEncryption,
            PrivateFormat,
            pkcs12,
        )
    except ImportError as err:  # pragma: no cover - a dependency of runner
        raise CertificateError(f"{where}.pfx needs the cryptography package to be read.") from err
    try:
        key, certificate, chain = pkcs12.load_key_and_certificates(
            path.read_bytes(), passphrase.encode() if passphrase else None)
    except (ValueError, TypeError) as err:
        raise CertificateError(f"{where}.pfx {str(path)!r} could not be read: {err} (a wrong or missing "
                               "passphrase file?).") from err
    if key is None or certificate is None:
        raise CertificateError(f"{where}.pfx {str(path)!r} holds no certificate with its key.")
    pem = certificate.public_bytes(Encoding.PEM) + b"".join(c.public_bytes(Encoding.PEM) for c in chain or [])
    return pem, key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
