"""Neutralising framebusting code (``modifyObstructiveCode``, ``experimentalSourceRewriting``).

A page framed inside the application can try to take over the whole tab: ``if (top !== self)
top.location = self.location``. runner rewrites the JavaScript and HTML such a framed page loads
so that its references to the top and parent windows mean the frame itself (``self``): the checks
find nothing to escape from, and the navigation stays inside the frame.

Two rewriters, one job:

* :func:`rewrite_js` with ``parse=False`` (``modifyObstructiveCode``): regular expressions for
  the usual forms: ``top.location``, ``parent.frames``, ``window.top``, ``self["parent"]``,
  ``top !== self``, ``self != parent``. Fast; indirect forms slip through.
* :func:`rewrite_js` with ``parse=True`` (``experimentalSourceRewriting``): the source is parsed
  (tree-sitter's JavaScript grammar) and a reference to the global ``top`` or ``parent`` is
  rewritten wherever it is used to bust (compared, or reached through for ``location`` or
  ``frames``), however it is written: a bare name (not one the script declares itself), a member
  or a subscript of ``window``/``self``/``globalThis`` (``window["top"]``) or of an alias of
  those (``const w = window; w.top``), or an alias of it (``const t = top; t.location = ...``:
  the initialiser is rewritten). Other uses (``parent.postMessage(...)``) are left alone. A
  script that does not parse falls back to the regular expressions.

:func:`rewrite_html` applies the same to the inline scripts of a document (and, for the regular
expressions, to its inline event handlers).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

__all__ = ["rewrite_html", "rewrite_js"]

_NAMES = ("top", "parent")
_GLOBALS = ("window", "self", "globalThis")

# -- regular expressions ----------------------------------------------------------------------
_BARE = r"(?<![\w$.])(?:top|parent)(?![\w$])"
_WINDOW_MEMBER = re.compile(r"\b(window|self|globalThis)(\s*\.\s*)(?:top|parent)(?![\w$])")
_WINDOW_SUBSCRIPT = re.compile(r"\b(window|self|globalThis)(\s*\[\s*)(['\"])(?:top|parent)\3(\s*\])")
_BARE_LOCATION = re.compile(_BARE + r"(?=\s*\.\s*(?:location|frames)\b)")
_BARE_BEFORE_EQUALITY = re.compile(_BARE + r"(?=\s*[!=]==?)")
_BARE_AFTER_EQUALITY = re.compile(r"(?<=[!=]=)(=?\s*)(?:top|parent)(?![\w$])")


def _rewrite_with_patterns(source: str) -> str:
    out = _WINDOW_MEMBER.sub(r"\1\2self", source)
    out = _WINDOW_SUBSCRIPT.sub(r"\1\2\3self\3\4", out)
    out = _BARE_LOCATION.sub("self", out)
    out = _BARE_BEFORE_EQUALITY.sub("self", out)
    return _BARE_AFTER_EQUALITY.sub(r"\1self", out)


# -- the parser -------------------------------------------------------------------------------
_parser: Any = None


def _get_parser() -> Any:
    global _parser
    if _parser is None:
        import tree_sitter
        import tree_sitter_javascript

        _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))
    return _parser


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _declared(root: Any) -> set[str]:
    """Names the script declares itself (variables, parameters, functions, classes, imports)."""
    names: set[str] = set()
    for node in _walk(root):
        if node.type in ("variable_declarator", "function_declaration", "class_declaration",
                         "function_expression", "generator_function_declaration"):
            name = node.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                names.add(name.text.decode())
        elif node.type in ("formal_parameters", "import_specifier", "namespace_import", "import_clause"):
            for child in node.children:
                if child.type == "identifier":
                    names.add(child.text.decode())
        elif node.type == "arrow_function":
            parameter = node.child_by_field_name("parameter")
            if parameter is not None and parameter.type == "identifier":
                names.add(parameter.text.decode())
    return names


def _window_aliases(root: Any) -> set[str]:
    """Names the script sets to ``window``, ``self`` or ``globalThis`` (``const w = window``)."""
    aliases: set[str] = set()
    for node in _walk(root):
        if node.type == "variable_declarator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and value is not None and value.type == "identifier" \
                    and value.text.decode() in _GLOBALS:
                aliases.add(name.text.decode())
    return aliases


_EQUALITY = ("==", "!=", "===", "!==")
_ESCAPES = ("location", "frames")


def _busting_use(node: Any) -> bool:
    """Whether the window reference ``node`` is used the way framebusting uses one: compared
    (``top !== self``), or reached through for its ``location`` or ``frames``
    (``top.location = ...``, ``parent["frames"]``). ``parent.postMessage(...)`` is not."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "binary_expression":
        operator = parent.child_by_field_name("operator")
        return operator is not None and operator.type in _EQUALITY
    if parent.type == "member_expression" and parent.child_by_field_name("object") == node:
        member = parent.child_by_field_name("property")
        return member is not None and member.text.decode() in _ESCAPES
    if parent.type == "subscript_expression" and parent.child_by_field_name("object") == node:
        index = parent.child_by_field_name("index")
        fragment = next((c for c in index.children if c.type == "string_fragment"), None) if index is not None else None
        return fragment is not None and fragment.text.decode() in _ESCAPES
    return False


def _window_reference(node: Any, declared: set[str], windows: set[str]) -> tuple[int, int, bytes] | None:
    """The edit that makes ``node`` mean the frame itself, when it is a reference to the global
    ``top``/``parent``: a bare name, ``window.top``, ``window["parent"]`` (or through an alias
    of ``window``). None for anything else."""
    if node.type == "identifier":
        text = node.text.decode()
        if text in _NAMES and text not in declared:
            return node.start_byte, node.end_byte, b"self"
        return None
    if node.type == "member_expression":
        target, member = node.child_by_field_name("object"), node.child_by_field_name("property")
        if target is not None and member is not None and target.type == "identifier" \
                and target.text.decode() in windows and member.text.decode() in _NAMES:
            return member.start_byte, member.end_byte, b"self"
        return None
    if node.type == "subscript_expression":
        target, index = node.child_by_field_name("object"), node.child_by_field_name("index")
        if target is not None and index is not None and target.type == "identifier" \
                and target.text.decode() in windows and index.type == "string":
            fragment = next((c for c in index.children if c.type == "string_fragment"), None)
            if fragment is not None and fragment.text.decode() in _NAMES:
                return fragment.start_byte, fragment.end_byte, b"self"
    return None


def _rewrite_with_parser(source: str) -> str | None:
    data = source.encode("utf-8")
    tree = _get_parser().parse(data)
    if tree.root_node.has_error:
        return None
    root = tree.root_node
    declared = _declared(root)
    aliases_of_window = _window_aliases(root)
    windows = (set(_GLOBALS) | aliases_of_window) - (declared - aliases_of_window)
    edits: dict[int, tuple[int, int, bytes]] = {}
    # names set to a window reference (`const t = top`), and where: rewritten if used to bust
    aliased: dict[str, list[tuple[int, int, bytes]]] = {}
    nodes = list(_walk(root))
    for node in nodes:
        edit = _window_reference(node, declared, windows)
        if edit is None:
            continue
        parent = node.parent
        if parent is not None and parent.type == "variable_declarator" and parent.child_by_field_name("value") == node:
            name = parent.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                aliased.setdefault(name.text.decode(), []).append(edit)
            continue
        if _busting_use(node):
            edits[edit[0]] = edit
    for node in nodes:
        if node.type == "identifier" and node.text.decode() in aliased and _busting_use(node):
            for edit in aliased.pop(node.text.decode()):
                edits[edit[0]] = edit
    for start, end, replacement in sorted(edits.values(), reverse=True):
        data = data[:start] + replacement + data[end:]
    return data.decode("utf-8")


def rewrite_js(source: str, *, parse: bool = False) -> str:
    """``source`` with its framebusting neutralised (see the module's docstring)."""
    if "top" not in source and "parent" not in source:
        return source
    if parse:
        rewritten = _rewrite_with_parser(source)
        if rewritten is not None:
            return rewritten
    return _rewrite_with_patterns(source)


_INLINE_SCRIPT = re.compile(r"(<script\b(?P<attrs>[^>]*)>)(?P<body>.*?)(</script\s*>)", re.I | re.S)
_JS_TYPES = ("", "text/javascript", "application/javascript", "module", "text/ecmascript")
_TYPE_ATTR = re.compile(r"""\btype\s*=\s*(["']?)([^"'\s>]*)\1""", re.I)
_EVENT_HANDLER = re.compile(r"""(\son[a-z]+\s*=\s*)(["'])(.*?)\2""", re.I | re.S)


def rewrite_html(source: str, *, parse: bool = False) -> str:
    """A document with its inline scripts (and inline event handlers) rewritten."""
    if "top" not in source and "parent" not in source:
        return source

    def script(match: re.Match[str]) -> str:
        attrs = match.group("attrs")
        kind = _TYPE_ATTR.search(attrs)
        if re.search(r"\bsrc\s*=", attrs, re.I) or (kind and kind.group(2).lower() not in _JS_TYPES):
            return match.group(0)
        return match.group(1) + rewrite_js(match.group("body"), parse=parse) + match.group(4)

    out = _INLINE_SCRIPT.sub(script, source)
    return _EVENT_HANDLER.sub(lambda m: m.group(1) + m.group(2) + _rewrite_with_patterns(m.group(3)) + m.group(2), out)
