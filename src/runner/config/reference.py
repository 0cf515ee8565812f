"""The configuration reference of ``docs/configuration.md``, generated from the schema."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from runner.config.schema import _schema, option_schema

__all__ = [
    "BEGIN_MARK",
    "DOCS_PATH",
    "END_MARK",
    "describe_type",
    "render_reference",
    "update_docs",
]

DOCS_PATH = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
BEGIN_MARK = "<!-- BEGIN GENERATED: runner.config.reference.render_reference(); do not edit -->"
END_MARK = "<!-- END GENERATED -->"


def _range(prop: dict[str, Any]) -> str:
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        return f" {low}–{high}"
    if low is not None:
        return f" ≥ {low}"
    return ""


def describe_type(prop: dict[str, Any]) -> str:
    """A compact type for people: ``integer 1–65535 or null``, ``string or false``, ..."""
    if "enum" in prop:
        return " or ".join(f"`{json.dumps(value)}`" for value in prop["enum"])
    types = prop.get("type", [])
    types = types if isinstance(types, list) else [types]
    no_true = prop.get("not") == {"enum": [True]}
    words: list[str] = []
    for json_type in types:
        if json_type in ("number", "integer"):
            words.append(json_type + _range(prop))
        elif json_type == "boolean":
            words.append("false" if no_true else "boolean")
        elif json_type == "string":
            if "x-string" in prop:  # what the option's strings are, in words ("preset name")
                words.append(prop["x-string"])
            elif "pattern" in prop:
                words.append("URL string")
            elif prop.get("minLength") is not None and prop.get("minLength") == prop.get(
                "maxLength"
            ):
                words.append(f"string of {prop['minLength']} characters")
            else:
                words.append("string")
        elif json_type == "array":
            items = prop.get("items", {})
            if items.get("type") == "string":
                words.append("array of strings")
            elif "$ref" in items:
                target = items["$ref"].rsplit("/", 1)[-1]
                spaced = re.sub(r"([A-Z])", r" \1", target).lower()
                words.append(f"array of {spaced} entries")
            else:
                words.append("array")
        else:
            words.append(json_type)
    if len(words) <= 2:
        return " or ".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _definition_table(name: str) -> list[str]:
    definition = _schema()["definitions"][name]
    required = set(definition.get("required", []))
    lines = ["| Field | Type | Required | Description |", "|---|---|---|---|"]
    for field, prop in definition["properties"].items():
        kind = describe_type(prop)
        if "items" in prop and "oneOf" in prop["items"]:
            kind = "array of PEM or PFX entries"
        lines.append(
            f"| `{field}` | {_cell(kind)} | {'yes' if field in required else 'no'} "
            f"| {_cell(prop.get('description', ''))} |"
        )
    return lines


def render_reference() -> str:
    """The generated part of docs/configuration.md: every option, then the certificate and web server entries."""
    names = sorted(n for n in _schema()["properties"] if n != "$schema")
    lines = [
        "| Option | Type | Default | Override | Description |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        prop = option_schema(name)
        default = f"`{json.dumps(prop['default'])}`"
        lines.append(
            f"| `{name}` | {_cell(describe_type(prop))} | {_cell(default)} "
            f"| {prop.get('x-override', 'never')} | {_cell(prop['description'])} |"
        )
    lines += ["", "`clientCertificates` entries:", ""] + _definition_table("clientCertificate")
    lines += ["", "PEM entry (`certs` item):", ""] + _definition_table("pemCertificate")
    lines += ["", "PFX entry (`certs` item):", ""] + _definition_table("pfxCertificate")
    lines += ["", "`webServer` entries:", ""] + _definition_table("webServer")
    return "\n".join(lines) + "\n"


def update_docs(text: str) -> str:
    """``text`` with the part between the markers replaced by :func:`render_reference`."""
    start = text.index(BEGIN_MARK) + len(BEGIN_MARK)
    end = text.index(END_MARK)
    return text[:start] + "\n" + render_reference() + text[end:]
