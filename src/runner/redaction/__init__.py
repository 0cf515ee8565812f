"""Secrets stay secret: what runner writes or serves shows ``[redacted]`` in their place.

``rules.py`` knows what is secret in a run (env values from ``runner.env.json`` and ``RUNNER_*``
variables, typed text with ``log=False``, the ``Authorization``/``Cookie``/``Set-Cookie`` headers
and the ``redact`` option's names) and hides it in a text, a URL, headers or a body;
``events.py`` applies it to a run event (the bus does, before any subscriber sees it);
``traces.py`` applies it to a kept Playwright trace. See docs/secrets.md.
"""

from __future__ import annotations

from runner.redaction.events import redact_config, redact_event
from runner.redaction.rules import (
           DEFAULT_HEADERS,
           MIN_SECRET_CHARS,
           REDACTED,
           Redactor,
           secret_env_names,
)

__all__ = ["REDACTED", "MIN_SECRET_CHARS", "DEFAULT_HEADERS", "Redactor", "secret_env_names", "redact_event",
           "redact_config"]
