"""What is secret in a run, and how a text, a URL, headers or a body are shown without it.

A :class:`Redactor` knows the secret values (the ``env`` entries that came from
``runner.env.json`` or ``RUNNER_*`` variables, the text typed with ``type(..., log=False)``), the
header names whose values are secret (``Authorization``, ``Proxy-Authorization``, ``Cookie``,
``Set-Cookie``, plus ``redact.headers``), the query parameter names (``redact.queryParams``)
and the keys of JSON and form bodies (``redact.bodyKeys``). Each of them is shown as
``[redacted]``.

A secret value is searched for in texts only when it is at least :data:`MIN_SECRET_CHARS`
characters long: ``"1"``, ``"true"`` or ``"8080"`` in ``runner.env.json`` would otherwise hide
every 1 of a report. Shorter values, booleans and null are hidden where their entry is shown
(``runner config``, the run's configuration in the report), not searched for elsewhere.

Every method is total: it takes the plain JSON values the events carry and never raises on them.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from runner.config.model import Config

__all__ = ["REDACTED", "MIN_SECRET_CHARS", "DEFAULT_HEADERS", "SECRET_ENV_SOURCES", "Redactor",
           "secret_env_names"]

REDACTED = "[redacted]"

#: The shortest secret value searched for in texts (see the module's docstring).
MIN_SECRET_CHARS = 6

#: The headers whose values are always hidden (names compared without case).
DEFAULT_HEADERS = ("authorization", "proxy-authorization", "cookie", "set-cookie")

#: The entries of ``runner.request(auth=...)`` that make its Authorization header.
AUTH_SECRETS = frozenset({"password", "pass", "bearer"})

#: Values given back as they are: booleans, numbers and null hold no text to search.
PLAIN_TYPES = frozenset({bool, int, float, type(None)})

#: The sources (``Config.env_sources``) of the env entries whose values are secret.
SECRET_ENV_SOURCES = frozenset({"envFile", "env"})


def secret_env_names(config: Config) -> list[str]:
    """The env entries of ``config`` that came from ``runner.env.json`` or a ``RUNNER_*``
    variable, less those ``redact.showEnv`` names."""
    shown = set(_rules(config).get("showEnv") or [])
    return sorted(name for name, source in config.env_sources.items()
                  if source in SECRET_ENV_SOURCES and name not in shown)


def _rules(config: Config) -> dict[str, Any]:
    rules = config.get("redact")
    return rules if isinstance(rules, dict) else {}


def _spellings(text: str) -> set[str]:
    """``text`` and the ways a page sends it on: URL-encoded (a login form's body posts
    ``S3cret!`` as ``S3cret%21``; a space as ``+`` or ``%20``) and JSON-escaped (``"`` as ``\\"``)."""
    return {text, urllib.parse.quote_plus(text, safe=""), urllib.parse.quote(text, safe=""),
            json.dumps(text, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1]}


def _texts(value: Any) -> Iterable[str]:
    """The texts a secret value may appear as: a string, a number's digits, the strings inside
    an object or array (booleans and null are never secrets worth searching for)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, int | float):
        yield str(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


class Redactor:
    """The run's secrets and how to hide them. Thread-safe: the test thread learns typed
    secrets while the engine's loop publishes requests."""

    def __init__(self, *, values: Iterable[Any] = (), env_names: Iterable[str] = (),
                 headers: Iterable[str] = (), query_params: Iterable[str] = (),
                 body_keys: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()  # the secrets as given
        self._searched: set[str] = set()  # and as a page sends them (see _spellings)
        self.env_names = frozenset(env_names)
        self.headers = frozenset(h.lower() for h in (*DEFAULT_HEADERS, *headers))
        self.query_params = frozenset(q.lower() for q in query_params)
        self.body_keys = frozenset(k.lower() for k in body_keys)
        self._pattern: re.Pattern[str] | None = None
        self._bytes: list[bytes] = []
        self._query = self._names_pattern(r"([?&;]|^)", self.query_params)
        self._form = self._names_pattern(r"(&|^)", self.body_keys | self.query_params)
        self._json_key = (re.compile(
            r'("(?:' + "|".join(re.escape(k) for k in sorted(self.body_keys)) + r')"\s*:\s*)'
            r'("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)', re.IGNORECASE) if self.body_keys else None)
        self.learn(*values)

    @staticmethod
    def _names_pattern(before: str, names: frozenset[str]) -> re.Pattern[str] | None:
        if not names:
            return None
        alternatives = "|".join(re.escape(n) for n in sorted(names))
        return re.compile(before + r"(" + alternatives + r")=([^&#\s'\"]*)", re.IGNORECASE)

    @classmethod
    def for_config(cls, config: Config, *, keeping: Redactor | None = None) -> Redactor:
        """The redactor of a run of ``config``: its secret env values and its ``redact`` option;
        with ``keeping``, the secrets that one knew too (the configuration the plugins file
        changed still hides the values it replaced)."""
        rules = _rules(config)
        names = secret_env_names(config)
        env = config.env
        values: list[Any] = [env[name] for name in names if name in env]
        if keeping is not None:
            names = sorted({*names, *keeping.env_names})
            values += keeping.values
        return cls(values=values, env_names=names,
                   headers=rules.get("headers") or (), query_params=rules.get("queryParams") or (),
                   body_keys=rules.get("bodyKeys") or ())

    # -- what is secret ----------------------------------------------------------------------
    def learn(self, *values: Any) -> None:
        """Hide these values too from now on (env values; text typed with ``log=False``)."""
        # a "secret" inside "[redacted]" would hide its own mark again at each pass
        texts = {t for v in values for t in _texts(v) if len(t) >= MIN_SECRET_CHARS and t not in REDACTED}
        with self._lock:
            if texts <= self._values:
                return
            self._values |= texts
            self._searched |= {s for t in texts for s in _spellings(t)}
            # longest first: a secret that contains another is hidden whole
            ordered = sorted(self._searched, key=lambda t: (-len(t), t))
            self._pattern = re.compile("|".join(re.escape(t) for t in ordered))
            self._bytes = [t.encode("utf-8") for t in ordered]

    @property
    def values(self) -> frozenset[str]:
        """The texts searched for (each at least :data:`MIN_SECRET_CHARS` long)."""
        return frozenset(self._values)

    # -- hiding them -------------------------------------------------------------------------
    def text(self, text: str) -> str:
        """``text`` with every secret value and every secret query parameter's value hidden."""
        pattern = self._pattern
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        if self._query is not None and "=" in text:
            text = self._query.sub(lambda m: f"{m.group(1)}{m.group(2)}={REDACTED}" if m.group(3) else m.group(0),
                                   text)
        return text

    def leaves_alone(self, texts: Iterable[str]) -> bool:
        """True when :meth:`text` gives each of ``texts`` back as it is; one search over them
        all instead of one per text (False may also mean only "search each": it is never True
        for a text that holds a secret). Raises TypeError for a text that is not a str."""
        pattern, query = self._pattern, self._query
        if pattern is None and query is None:
            return True
        # "&" before each text: a secret query parameter at a text's start is found as at its own
        joined = "&".join(texts)
        return (pattern is None or pattern.search(joined) is None) and (query is None or query.search(joined) is None)

    def header_map(self, headers: Mapping[str, Any]) -> dict[str, Any]:
        """Headers with the values of secret headers hidden (and secret values in the others)."""
        secret, text = self.headers, self.text
        return {str(name): REDACTED if str(name).lower() in secret
                else text(value) if type(value) is str else self.value(value)
                for name, value in headers.items()}

    def body(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """A body record (``runner.net.bodies.body_record``) with its secrets hidden: the values of
        ``bodyKeys`` in a JSON or form body, and secret values in any text or bytes."""
        out = dict(record)
        data = record.get("data")
        if not isinstance(data, str):
            return out
        if record.get("encoding") == "base64":
            out["data"] = self._base64(data)
            return out
        out["data"] = self.text(self._body_keys(data))
        return out

    def _body_keys(self, data: str) -> str:
        if not self.body_keys and not self.query_params:
            return data
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict | list):
            if not self.body_keys:
                return data
            hidden, changed = self._json_keys(parsed)
            return json.dumps(hidden, ensure_ascii=False) if changed else data
        if self._json_key is not None and data.lstrip()[:1] in ("{", "["):  # cut short: no parse
            return self._json_key.sub(lambda m: f'{m.group(1)}"{REDACTED}"', data)
        if self._form is not None and "=" in data:
            return self._form.sub(lambda m: f"{m.group(1)}{m.group(2)}={REDACTED}", data)
        return data

    def _json_keys(self, value: Any) -> tuple[Any, bool]:
        if isinstance(value, dict):
            changed = False
            out: dict[str, Any] = {}
            for key, item in value.items():
                if str(key).lower() in self.body_keys:
                    out[key], changed = REDACTED, True
                else:
                    out[key], inner = self._json_keys(item)
                    changed = changed or inner
            return out, changed
        if isinstance(value, list):
            items = [self._json_keys(item) for item in value]
            return [item for item, _ in items], any(changed for _, changed in items)
        return value, False

    def _base64(self, data: str) -> str:
        secrets = self._bytes
        if not secrets:
            return data
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return data
        hidden = raw
        for secret in secrets:
            hidden = hidden.replace(secret, REDACTED.encode())
        return data if hidden == raw else base64.b64encode(hidden).decode("ascii")

    def value(self, value: Any, key: str = "") -> Any:
        """A plain JSON value with its secrets hidden: texts searched, ``*headers`` maps, body
        records (dicts with ``encoding`` and ``data``) and objects under a ``body`` key hidden as
        such."""
        if isinstance(value, str):
            return self.text(value)
        if type(value) in PLAIN_TYPES:  # the most common values of all, and never secret
            return value
        if isinstance(value, Mapping):
            lowered = key.lower()
            if lowered.endswith("headers"):
                return self.header_map(value)
            secret_keys = AUTH_SECRETS if lowered == "auth" else self.query_params if lowered == "qs" else None
            if secret_keys is not None:  # request(auth=...) makes the Authorization header, qs= the query
                return {k: REDACTED if str(k).lower() in secret_keys else self.value(v, str(k))
                        for k, v in value.items()}
            if "encoding" in value and "data" in value:
                body = self.body(value)  # then its other fields, searched as texts
                return {k: v if k == "data" else self.value(v, str(k)) for k, v in body.items()}
            if key.lower() == "body" and self.body_keys:  # a stub's body, given as an object
                value = self._json_keys(value)[0]
            return {k: self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(item, key) for item in value]
        if isinstance(value, tuple):
            return tuple(self.value(item, key) for item in value)
        return value

    def env(self, env: Mapping[str, Any]) -> dict[str, Any]:
        """An ``env`` object with each secret entry's value hidden, whatever its length."""
        return {name: REDACTED if name in self.env_names else self.value(value) for name, value in env.items()}
