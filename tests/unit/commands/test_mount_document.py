"""The page runner.mount() builds: assets in order, URLs escaped, the base they resolve against."""

from __future__ import annotations

import pytest

from runner.commands.mount import ROOT_ID, mount_document
from runner.errors import UsageError


def test_assets_in_order_around_the_markup() -> None:
    page = mount_document("<p>hi</p>", stylesheets=["a.css"], scripts="b.js", modules=["c.js"])
    assert page.index('href="a.css"') < page.index(f'<div id="{ROOT_ID}" data-runner-root><p>hi</p></div>')
    assert page.index("<p>hi</p>") < page.index('<script src="b.js">') < page.index('type="module" src="c.js"')
    assert '<base href="/">' in page  # relative URLs: fileServerFolder's root


def test_with_a_dev_server_relative_urls_go_to_it() -> None:
    page = mount_document("", modules=["src/main.js", "https://cdn.test/x.js"], base="http://127.0.0.1:5173/")
    assert 'src="http://127.0.0.1:5173/src/main.js"' in page and 'src="https://cdn.test/x.js"' in page
    assert '<base href="http://127.0.0.1:5173/">' in page


def test_urls_and_title_cannot_break_out_of_their_attribute() -> None:
    page = mount_document("", stylesheets=['x.css"><script>alert(1)</script>'], title="</title><b>")
    assert "<script>alert(1)" not in page and "&quot;&gt;&lt;script&gt;" in page
    assert "<title>&lt;/title&gt;&lt;b&gt;</title>" in page


@pytest.mark.parametrize("bad", [None, b"<p></p>", 3])
def test_markup_must_be_text(bad: object) -> None:
    with pytest.raises(UsageError, match="runner.mount\\(\\) renders markup"):
        mount_document(bad)  # type: ignore[arg-type]
