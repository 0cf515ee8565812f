"""Which URLs a clientCertificates entry covers: scheme, host glob, port, path glob."""

from __future__ import annotations

import ssl

import pytest

from runner.engine.client_certs import (
    CertificateError,
    ClientCertificate,
    certificate_for,
    load_client_certificates,
)
from runner.match import compile_pattern


def entry(url: str) -> ClientCertificate:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return ClientCertificate(index=0, url=url, scheme=parts.scheme, host=compile_pattern(parts.hostname, {"nocase": True}),
                             port=parts.port or 443, path=compile_pattern(parts.path, {"dot": True}) if parts.path else None,
                             context=ssl.create_default_context())


@pytest.mark.parametrize(
    ("pattern", "url", "covered"),
    [
        ("https://api.test/secure/**", "https://api.test/secure/a/b?x=1", True),
        ("https://api.test/secure/**", "https://api.test/public", False),
        ("https://*.corp.test/**", "https://a.corp.test/x", True),
        ("https://*.corp.test/**", "https://corp.test/x", False),
        ("https://api.test", "https://api.test/anything/at/all", True),  # no path: every path
        ("https://api.test:8443/**", "https://api.test/x", False),  # the port must match
        ("https://api.test:8443/**", "https://api.test:8443/x", True),
        ("https://api.test/**", "http://api.test/x", False),  # and the scheme
        ("https://API.test/**", "https://api.TEST/x", True),  # host names ignore case
    ],
)
def test_coverage(pattern: str, url: str, covered: bool) -> None:
    assert (certificate_for([entry(pattern)], url) is not None) is covered


@pytest.mark.parametrize("url", ["api.test/**", "ftp://api.test/**", "https:///x"])
def test_an_entry_url_must_name_a_scheme_and_host(url: str) -> None:
    with pytest.raises(CertificateError, match=r"clientCertificates\[0\]\.url"):
        load_client_certificates([{"url": url, "certs": [{"cert": "c", "key": "k"}]}])
