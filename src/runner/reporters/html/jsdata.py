"""The report's data files: JSON handed to a registered JavaScript function.

A data file is a script (``__runnerReport.test("12", {...});``), because a page opened from disk
(``file://``) may load scripts but not ``fetch()`` files. The JSON inside it must never end the
script or change its meaning, whatever the app or the user put in a title, a header or a body:
``<``, ``>`` and ``&`` are written as ``\\u003c``, ``\\u003e``, ``\\u0026`` (no ``</script>``, no
``<!--``), and everything outside ASCII as ``\\uXXXX`` (U+2028 and U+2029 end a line in older
JavaScript). NaN and infinities, which JSON has no words for, become null.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["js_literal", "js_call", "REGISTRY"]

#: The global object report.js registers; every data file calls one of its functions.
REGISTRY = "__runnerReport"

_UNSAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def js_literal(value: Any) -> str:
    """``value`` as a JSON text that is also a safe JavaScript expression inside a script file
    or a ``<script>`` element (objects that are not JSON become their ``str``)."""
    try:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError:  # a NaN or an infinity somewhere
        text = json.dumps(_finite(value), ensure_ascii=True, separators=(",", ":"), allow_nan=False,
                          default=str)
    return text.translate(_UNSAFE)


def js_call(function: str, *args: Any) -> str:
    """The text of a data file: ``__runnerReport.<function>(<args>);`` and a newline."""
    return f"{REGISTRY}.{function}({','.join(js_literal(a) for a in args)});\n"
