"""Resolve the configuration of a run from its layers, lowest precedence first.

1. the schema defaults;
2. ``runner.json`` top level (source ``config``);
3. its ``e2e`` or ``component`` block for the testing type being run (source ``e2e``/``component``;
   ``env`` in the block is merged into the top-level ``env``);
4. ``runner.env.json`` beside the config file (``env`` only, source ``envFile``);
5. ``RUNNER_*`` environment variables (source ``env``);
6. ``--config`` and ``--env`` (source ``cli``), applied after the block: the CLI always wins;
   repeated flags are applied in order, so a later one wins per key.

The plugins file and the ``runner`` mark come later, through :meth:`Config.merged`.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from runner.casing import snake_to_camel
from runner.config.coerce import coerce_for_option, coerce_value, parse_cli_text, parse_cli_values
from runner.config.limits import parse_json
from runner.config.model import NOTICES, Config, collapse_base_url
from runner.config.schema import BLOCK_KEYS, defaults, option_names
from runner.config.validate import file_error, problems_of, values_error
from runner.errors import ConfigError, UsageError

__all__ = ["CONFIG_FILE_NAME", "ENV_FILE_NAME", "ENV_PREFIX", "load_config", "read_json_file"]

CONFIG_FILE_NAME = "runner.json"
ENV_FILE_NAME = "runner.env.json"
ENV_PREFIX = "RUNNER_"
_RESERVED_PREFIX = "RUNNER_INTERNAL_"
TESTING_TYPES = ("e2e", "component")


def read_json_file(path: Path, *, what: str, secret: bool = False) -> Any:
    """The parsed JSON of ``path``; a ``ConfigError`` with line and column when it is not JSON,
    and one that says why when it is nested too deep or holds a number too long to read.

    ``what`` names the file in messages ("configuration file", "environment file"). ``secret``:
    the file holds secrets (``runner.env.json``), so a message quotes none of its text.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"Could not read your {what} {path}: {exc.strerror or exc}.") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"Your {what} {path} is not UTF-8 text ({exc.reason}).") from None
    if not text.strip():
        message = f"Your {what} {path} is empty. Expected a JSON object, for example {{}}."
        raise ConfigError(message, [message])
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        lines = text.splitlines() or [""]
        shown = lines[exc.lineno - 1] if exc.lineno - 1 < len(lines) else ""
        problem = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
        gutter = f"{exc.lineno} | "
        if secret:  # the line may hold a secret: where, not what
            shown = "(the line is not shown: this file holds secrets)"
            snippet = f"    {gutter}{shown}"
        else:
            snippet = f"    {gutter}{shown}\n    {' ' * len(gutter)}{' ' * (exc.colno - 1)}^"
        message = f"Your {what} {path} is not valid JSON: {problem}.\n\n{snippet}"
        raise ConfigError(message, [problem]) from None
    except ValueError as exc:
        message = f"Your {what} {path} cannot be used: {exc}."
        raise ConfigError(message, [message]) from None


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null"


def _read_object(path: Path, *, what: str, secret: bool = False) -> dict[str, Any]:
    document = read_json_file(path, what=what, secret=secret)
    if not isinstance(document, dict):
        shown = json.dumps(document)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        message = (
            f"Your {what} {path} is invalid: it must contain a JSON object ({{...}}), but it "
            f"contains {_json_kind(document)}" + ("." if secret else f": `{shown}`.")
        )
        raise ConfigError(message, [message])
    return document


def _find_config_file(root: Path, config_file: str | Path | None | Literal[False]) -> Path | None:
    if config_file is False or config_file == "false":
        return None
    if config_file is None:
        default = root / CONFIG_FILE_NAME
        _refuse_non_file(default, "configuration file", ", or pass `--config-file false` to run on defaults")
        return default if default.is_file() else None
    path = Path(os.path.expanduser(os.fspath(config_file)))  # `--config-file=~/x`: no shell expands it
    path = path if path.is_absolute() else root / path
    if not path.exists():
        message = (
            f"The configuration file {path} does not exist. Check --config-file, or pass "
            "`--config-file false` to run on defaults."
        )
        raise ConfigError(message, [message])
    if not path.is_file():
        message = f"The configuration file {path} is {_not_a_file(path)}. Expected a JSON file."
        raise ConfigError(message, [message])
    return path


def _refuse_non_file(path: Path, what: str, remedy: str = "") -> None:
    """Raise ``ConfigError`` when something other than a file (a folder, a FIFO, a dangling link)
    has the name of the optional ``what`` at ``path``: that is not "no file"."""
    if path.is_file() or not (path.exists() or path.is_symlink()):
        return
    message = (
        f"The {what} {path} is {_not_a_file(path)}. Expected a JSON file ({path.name}), or none: "
        f"rename or remove what is there{remedy}."
    )
    raise ConfigError(message, [message])


def _not_a_file(path: Path) -> str:
    """What stands at ``path`` instead of a file, for messages."""
    if path.is_dir():
        return "a folder, not a file"
    if not path.exists():
        return "a link to nothing, not a file"
    return "not a regular file"


class _Layers:
    """The values being resolved, with the source label and detail of each."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = defaults()
        self.sources = dict.fromkeys(self.values, "default")
        self.details = dict.fromkeys(self.values, "default")
        self.env_sources: dict[str, str] = {}
        self.env_details: dict[str, str] = {}
        self.places: dict[str, list[str]] = {}

    def set(self, key: str, value: Any, source: str, detail: str) -> None:
        if key == "env" and isinstance(value, Mapping):
            self.merge_env(value, source, detail)
            return
        self.values[key] = copy.deepcopy(value)
        self.sources[key], self.details[key] = source, detail
        self.places.setdefault(key, []).append(detail)

    def merge_env(self, entries: Mapping[str, Any], source: str, detail: str) -> None:
        for name, value in entries.items():
            self.set_env(str(name), value, source, detail)

    def set_env(self, name: str, value: Any, source: str, detail: str) -> None:
        if not isinstance(self.values["env"], dict):
            return  # `env` itself is invalid (from --config); validation reports it
        self.values["env"][name] = copy.deepcopy(value)
        self.env_sources[name], self.env_details[name] = source, detail
        self.sources["env"], self.details["env"] = source, detail

    def replace_env(self, entries: Mapping[str, Any], source: str, detail: str) -> None:
        self.values["env"] = {}
        self.env_sources.clear()
        self.env_details.clear()
        self.merge_env(entries, source, detail)
        self.sources["env"], self.details["env"] = source, detail


# Variables that steer the runner process itself (browser choice, debugging), never config or env.
PROCESS_VARIABLES = frozenset({"RUNNER_BROWSER", "RUNNER_DEBUG", "RUNNER_WORKERS", "RUNNER_BROWSER_ENDPOINT",
                               "RUNNER_BROWSER_ENDPOINT_HEADERS"})


def _environ_layer(layers: _Layers, environ: Mapping[str, str]) -> None:
    """Apply ``RUNNER_*`` variables: config keys, ``RUNNER_env``, everything else into env."""
    options = set(option_names())
    settings: list[tuple[int, str, str, str]] = []  # (priority, variable, key, text)
    env_entries: list[tuple[str, str, str]] = []
    replace: list[tuple[str, str]] = []
    for variable, text in environ.items():
        if variable[: len(ENV_PREFIX)].upper() != ENV_PREFIX or text == "":
            continue
        if variable.upper().startswith(_RESERVED_PREFIX) or variable.upper() in PROCESS_VARIABLES:
            continue
        rest = variable[len(ENV_PREFIX) :]
        if not rest:
            continue
        if rest in options:
            key, priority = rest, 1
        else:
            key, priority = snake_to_camel(rest.lower()), 0
        if key == "env":
            replace.append((variable, text))
        elif key in options:
            settings.append((priority, variable, key, text))
        else:
            env_entries.append((variable, rest, text))
    for variable, text in sorted(replace):
        try:
            parsed = parse_json(text)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            message = (
                f"An invalid configuration value was set from the environment variable "
                f"{variable}: expected a JSON object of env values, for example "
                f'{variable}=\'{{"apiUrl": "http://localhost:8080"}}\'. Instead the value was: '
                f"`{text}`"
            )
            raise ConfigError(message, [message])
        layers.replace_env(parsed, "env", f"environment variable {variable}")
    for _priority, variable, key, text in sorted(settings):
        layers.set(key, coerce_for_option(key, text), "env", f"environment variable {variable}")
    for variable, name, text in sorted(env_entries):
        layers.set_env(name, coerce_value(text), "env", f"environment variable {variable}")


#: What ``--config`` / ``--env`` gave: one flag's text or values, or every flag's, in order.
CliValues = str | Mapping[str, Any] | Sequence[str | Mapping[str, Any]] | None


def _cli_values(value: str | Mapping[str, Any], option: str) -> dict[str, Any]:
    if isinstance(value, str):
        if option == "--config":
            return parse_cli_text(value, option=option, convert=coerce_for_option)
        return parse_cli_values(value, option=option)
    return dict(value)


def _cli_flags(value: CliValues, option: str) -> list[dict[str, Any]]:
    """The values of each ``option`` flag, in the order given (a later flag wins per key)."""
    if value is None:
        return []
    if isinstance(value, str | Mapping):
        return [_cli_values(value, option)]
    return [_cli_values(one, option) for one in value]


def _source_phrase(detail: str) -> str:
    return f"the {detail}" if detail.startswith("environment variable") else detail


def _config_file_layers(
    layers: _Layers, path: Path | None, file_label: str, project_root: Path, testing_type: str
) -> dict[str, Any]:
    """Layer the config file's top-level keys, then its ``testing_type`` block; return the
    file's document (``{}`` without a file). Raises ``ConfigError`` for a file the schema
    rejects."""
    if path is None:
        return {}
    document = _read_object(path, what="configuration file")
    problems = problems_of(document, flat=False, root=project_root)
    if problems:
        raise file_error(str(path), problems)
    for key, value in document.items():
        if key != "$schema" and key not in BLOCK_KEYS:
            layers.set(key, value, "config", file_label)
    for key, value in document.get(testing_type, {}).items():
        layers.set(key, value, testing_type, f"{file_label} {testing_type} block")
    return document


def _env_file_layer(layers: _Layers, project_root: Path) -> None:
    """Merge ``runner.env.json`` into ``env`` when the project has one. Raises ``ConfigError``
    when something that is not a file has its name."""
    env_file = project_root / ENV_FILE_NAME
    _refuse_non_file(env_file, "environment file")
    if env_file.is_file():
        layers.merge_env(_read_object(env_file, what="environment file", secret=True), "envFile", ENV_FILE_NAME)


def _notices(layers: _Layers, document: Mapping[str, Any], file_label: str, testing_type: str) -> list[str]:
    """The start-up notices of the options in ``NOTICES`` that the run sets to a value that would
    mean something in the original, each naming every place it was written."""
    warnings: list[str] = []
    for name, (matters, notice) in NOTICES.items():
        places = list(dict.fromkeys(layers.places.get(name, [])))
        if name == "nodeVersion":  # deprecated wherever it is written, even in the other block
            places += [f"{file_label} {block} block" for block in BLOCK_KEYS
                       if block != testing_type and name in document.get(block, {})]
        if places and matters(layers.values.get(name)):
            warnings.append(notice(", ".join(places)))
    return warnings


def load_config(
    root: Path | str | None = None,
    *,
    config_file: str | Path | None | Literal[False] = None,
    testing_type: str = "e2e",
    cli_config: CliValues = None,
    cli_env: CliValues = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Resolve, validate and return the configuration of a run.

    ``root`` defaults to the current directory. ``config_file`` ``None`` reads
    ``<root>/runner.json`` when it exists (else defaults only); ``False`` or ``"false"`` uses
    defaults only; a path (relative to ``root``) must exist. The project root is the config
    file's folder, or ``root`` without a file. ``environ`` defaults to ``os.environ``.
    ``cli_config`` and ``cli_env`` are one flag's value or a sequence of them (repeated flags),
    applied in order: a later flag wins per key (``env`` entries merge one by one).
    Raises ``ConfigError`` listing every problem at once.
    """
    if testing_type not in TESTING_TYPES:
        raise UsageError(f"Unknown testing type {testing_type!r}. Expected 'e2e' or 'component'.")
    base = Path(root if root is not None else os.getcwd()).resolve()
    path = _find_config_file(base, config_file)
    project_root = path.parent if path else base
    layers = _Layers()

    file_label = path.name if path else CONFIG_FILE_NAME
    document = _config_file_layers(layers, path, file_label, project_root, testing_type)
    _env_file_layer(layers, project_root)
    _environ_layer(layers, os.environ if environ is None else environ)

    for values in _cli_flags(cli_config, "--config"):
        for key, value in values.items():
            layers.set(key, value, "cli", "--config")
    for values in _cli_flags(cli_env, "--env"):
        layers.merge_env(values, "cli", "--env")

    problems = problems_of(layers.values, flat=True, root=project_root)
    if problems:
        source_of = {key: _source_phrase(detail) for key, detail in layers.details.items()}
        raise values_error(problems, source_of)
    collapse_base_url(layers.values)

    return Config(
        layers.values,
        sources=layers.sources,
        details=layers.details,
        env_sources=layers.env_sources,
        env_details=layers.env_details,
        project_root=project_root,
        config_file=path,
        testing_type=testing_type,
        warnings=_notices(layers, document, file_label, testing_type),
    )
