"""camelCase <-> snake_case: the one converter of names, for every place that answers to both
spellings (net's req/res/interception attributes, the configuration's option names, the
commands' records and options, the path walker of ``its`` and the assertions).

Pure, and in the bottom layer (beside ``errors``), below all its users."""

from __future__ import annotations

import functools
import re

__all__ = ["camel_to_snake", "snake_to_camel"]

_CAPITAL = re.compile(r"(?<!^)([A-Z])")


@functools.lru_cache(maxsize=512)  # attribute lookups on req/res convert the same few names
def camel_to_snake(name: str, *, camel_only: bool = False) -> str:
    """``statusCode`` -> ``status_code``: an underscore before every capital but a first letter,
    and the whole name lower-cased (``StatusCode`` -> ``status_code``).

    ``camel_only`` is the rule of net's attribute spellings (``req.statusCode``): only a camelCase
    name is a spelling of a snake_case one, so a name with a leading underscore is returned as
    it is and nothing but the capitals after the first letter is lowered (``Url`` stays ``Url``:
    ``req.Url`` is no attribute, as before this converter was shared).
    """
    if camel_only and name.startswith("_"):
        return name
    spaced = _CAPITAL.sub(lambda m: "_" + m.group(1).lower(), name)
    return spaced if camel_only else spaced.lower()


def snake_to_camel(name: str) -> str:
    """``viewport_width`` -> ``viewportWidth`` (taken as written, not lower-cased)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
