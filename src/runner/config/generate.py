"""Regenerate the files derived from ``runner.schema.json``.

``python -m runner.config.generate`` rewrites ``src/runner/config/accessors.py`` (the typed
snake_case properties of ``Config``) and the generated table in ``docs/configuration.md``. Unit
tests fail when either is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from runner.casing import camel_to_snake
from runner.config.schema import option_names, option_schema

__all__ = ["python_type", "render_accessors", "main"]

_SIMPLE = {
    "string": "str",
    "number": "float",
    "integer": "int",
    "boolean": "bool",
    "null": "None",
    "object": "dict[str, Any]",
}


def python_type(prop: dict[str, Any]) -> str:
    """The annotation of an option's value, from its JSON types (``["string", "null"]`` -> ``str | None``)."""
    types = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
    out: list[str] = []
    for json_type in types:
        if json_type == "array":
            items = prop.get("items", {})
            out.append("list[str]" if items.get("type") == "string" else "list[Any]")
        else:
            out.append(_SIMPLE[json_type])
    if "None" in out:
        out.remove("None")
        out.append("None")
    return " | ".join(out)


def render_accessors() -> str:
    """The source of ``accessors.py``."""
    lines = [
        '"""Typed snake_case properties of ``Config``. GENERATED from runner.schema.json: do not edit.',
        "",
        "Regenerate with ``python -m runner.config.generate``.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any",
        "",
        "",
        "class OptionAccessors:",
        '    """One read-only property per option of runner.json (``config.base_url`` ...)."""',
        "",
        "    # Over the ~250-line size target on purpose: a generated table with no other job, one",
        "    # property per option of the schema, that grows with the schema (cut in parts it would",
        "    # only be cut, not split: the options have no grouping of their own).",
        "",
        "    __slots__ = ()",
        "",
        "    def _value(self, key: str) -> Any:",
        "        raise NotImplementedError",
    ]
    for name in option_names():
        prop = option_schema(name)
        annotation = python_type(prop)
        summary = prop["description"].split(". ")[0].rstrip(".").replace('"', "'")
        lines += [
            "",
            "    @property",
            f"    def {camel_to_snake(name)}(self) -> {annotation}:",
            f'        """``{name}``: {summary}."""',
            f'        value: {annotation} = self._value("{name}")',
            "        return value",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Rewrite accessors.py and the docs table; ``--check`` only reports whether they are stale."""
    from runner.config.reference import DOCS_PATH, update_docs

    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    target = Path(__file__).with_name("accessors.py")
    stale: list[str] = []
    text = render_accessors()
    if target.read_text(encoding="utf-8") != text:
        stale.append(str(target))
        if not check:
            target.write_text(text, encoding="utf-8")
    docs = DOCS_PATH.read_text(encoding="utf-8")
    updated = update_docs(docs)
    if updated != docs:
        stale.append(str(DOCS_PATH))
        if not check:
            DOCS_PATH.write_text(updated, encoding="utf-8")
    for path in stale:
        print(("stale: " if check else "rewrote: ") + path)
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
