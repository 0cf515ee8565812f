"""``runner.mount()``: a component's markup rendered into a page of its own (component testing).

The page is served by runner's file server (from ``fileServerFolder``'s origin, so the project's
stylesheets, scripts and images load by relative URL); with a dev server (the plugins file's
``dev-server:start`` handler) relative asset URLs go to the dev server instead, so a JavaScript
front end mounts from its own bundler. The markup is the test's own (a string it built, or a
template its own engine rendered, e.g. Jinja2) and goes into the page as it is.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urljoin

from runner.errors import UsageError

__all__ = ["MountHost", "ROOT_ID", "mount_document"]

#: The id of the element the markup is mounted in (the subject ``mount`` returns).
ROOT_ID = "runner-root"


@dataclass(frozen=True)
class MountHost:
    """What ``runner.mount`` needs from the run: ``serve(html)`` serves a page and gives its URL;
    ``dev_server()`` the dev server's URL (None without one)."""

    serve: Callable[[str], str]
    dev_server: Callable[[], str | None]


def _urls(name: str, value: Sequence[str] | str) -> list[str]:
    items = [value] if isinstance(value, str) else list(value)
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise UsageError(f"runner.mount()'s {name} must be a list of URL strings (relative to "
                             f"fileServerFolder, or to the dev server); found {item!r}.")
    return items


def mount_document(markup: str, *, stylesheets: Sequence[str] | str = (), scripts: Sequence[str] | str = (),
                   modules: Sequence[str] | str = (), base: str | None = None, title: str = "runner.mount") -> str:
    """The page of a mount: ``stylesheets`` in the head, ``markup`` in ``<div id="runner-root">``,
    then ``scripts`` (classic) and ``modules`` (ES modules), in order. Relative URLs resolve
    against ``base`` (the dev server) when given, else against the server's root."""
    if not isinstance(markup, str):
        raise UsageError(
            "runner.mount() renders markup: a string of HTML (or what your template engine rendered, "
            f"e.g. Jinja2's template.render(...)); found {type(markup).__name__}: {markup!r:.80}."
        )

    def where(url: str) -> str:
        return html.escape(urljoin(base, url) if base else url, quote=True)

    head = [f'<link rel="stylesheet" href="{where(u)}">' for u in _urls("stylesheets", stylesheets)]
    tail = [f'<script src="{where(u)}"></script>' for u in _urls("scripts", scripts)]
    tail += [f'<script type="module" src="{where(u)}"></script>' for u in _urls("modules", modules)]
    return "\n".join([
        "<!doctype html>",
        '<html><head><meta charset="utf-8">',
        f'<base href="{html.escape(base or "/", quote=True)}">',
        f"<title>{html.escape(title)}</title>",
        *head,
        "</head><body>",
        f'<div id="{ROOT_ID}" data-runner-root>{markup}</div>',
        *tail,
        "</body></html>",
    ])
