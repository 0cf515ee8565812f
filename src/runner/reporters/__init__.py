"""Reporters: what a run prints or writes. ``make_reporter`` builds one from the configuration."""

from __future__ import annotations

import contextlib
import difflib
import importlib
import sys
from pathlib import Path
from typing import Any

from runner.config.paths import resolve_path
from runner.errors import ConfigError
from runner.reporters.base import Reporter
from runner.reporters.dot import DotReporter
from runner.reporters.json_report import JsonReporter
from runner.reporters.junit import JunitReporter
from runner.reporters.listing import ListReporter
from runner.reporters.minimal import MinReporter
from runner.reporters.model import AttemptResult, RunResult, SpecResult, TestResult
from runner.reporters.spec import SpecReporter
from runner.reporters.tap import TapReporter
from runner.usercode.tracebacks import error_line, user_frames

__all__ = ["Reporter", "RunResult", "SpecResult", "TestResult", "AttemptResult", "make_reporter",
           "BUILTIN"]

BUILTIN: dict[str, type[Reporter]] = {
    "spec": SpecReporter,
    "dot": DotReporter,
    "list": ListReporter,
    "min": MinReporter,
    "tap": TapReporter,
    "json": JsonReporter,
    "junit": JunitReporter,
}


def _load_custom(name: str, project_root: Path) -> type[Reporter]:
    """``pkg.module:Class``, ``pkg.module`` (its ``Reporter`` attribute), or a ``.py`` path."""
    module_name, _, attr = name.partition(":")
    if not module_name.strip():
        raise ConfigError(
            f"reporter {name!r} names no module.\nExpected a built-in reporter ({', '.join(BUILTIN)}), "
            "a module path (my_pkg.reporting:MyReporter) or a .py file relative to the project."
        )
    if module_name.endswith(".py") or "/" in module_name:
        from runner.usercode.plugins_file import load_module

        path = (project_root / module_name).resolve()
        if path.is_dir():
            raise ConfigError(
                f"reporter {name!r}: {str(path)!r} is a folder.\nExpected a .py file that defines a "
                "reporter class (./reporting/my_reporter.py), or a module path (reporting.my_reporter)."
            )
        if not path.is_file():
            raise ConfigError(
                f"reporter {name!r}: the file {str(path)!r} does not exist.\n"
                f"Expected a built-in reporter ({', '.join(BUILTIN)}), a module path "
                "(my_pkg.reporting:MyReporter) or a .py file relative to the project."
            )
        module = load_module(path, f"runner_custom_reporter_{path.stem}")
        where = str(path)
    else:
        # a module of the project itself (reporting/my_reporter.py as reporting.my_reporter)
        sys.path.insert(0, str(project_root))
        try:
            module = importlib.import_module(module_name)
        except ImportError as err:
            close = difflib.get_close_matches(name, list(BUILTIN), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                f"reporter {name!r} is not a built-in reporter and could not be imported: {err}.{hint}\n"
                f"Built-in reporters: {', '.join(BUILTIN)}."
            ) from err
        except Exception as err:
            tb = _reporter_traceback(err)
            raise ConfigError(f"reporter {name!r}: importing {module_name} raised {type(err).__name__}:\n{tb}") from err
        finally:
            if sys.path and sys.path[0] == str(project_root):
                del sys.path[0]
        where = f"the module {module_name}"
    cls = getattr(module, attr or "Reporter", None)
    if cls is None or not isinstance(cls, type):
        found = "nothing" if cls is None else repr(cls)[:80]
        raise ConfigError(
            f"reporter {name!r}: {where} has no reporter class {attr or 'Reporter'!r} (found {found}).\n"
            "Expected a class with on_run_start/on_spec_start/on_test_end/... methods (see docs/reporters.md)."
        )
    if not any(callable(getattr(cls, hook, None)) for hook in _HOOKS):
        # a class that would be fed the run and print nothing (collections:OrderedDict): a wrong name
        raise ConfigError(
            f"reporter {name!r}: {cls.__module__}.{cls.__qualname__} in {where} is not a reporter: it has none of "
            f"the hooks {', '.join(_HOOKS)}.\nExpected a subclass of runner.reporters.Reporter "
            "(see docs/reporters.md), or check the name after the colon."
        )
    return cls


#: The hooks a reporter is fed (runner.reporters.base.Reporter); a class with none of them is no reporter.
_HOOKS = ("on_run_start", "on_spec_start", "on_test_start", "on_test_end", "on_spec_end", "on_run_end")


def check_options(name: str, cls: type, options: dict[str, Any], project_root: Path) -> list[str]:
    """Check ``reporterOptions`` against the options a built-in reporter reads.

    Returns warnings for names it does not read (they may come from another tool's reporter: the
    run goes on); raises ``ConfigError`` for a value of the wrong type or an output path that
    cannot be a file.
    """
    known: dict[str, tuple[type, str]] = getattr(cls, "OPTIONS", {}) or {}
    if not known and name not in BUILTIN:
        return []
    warnings = []
    for key, value in options.items():
        if key == "projectRoot":
            continue
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            reads = ", ".join(known) if known else "no options"
            warnings.append(f"reporterOptions.{key} is not an option of the {name} reporter and is ignored.{hint} "
                            f"It reads {reads}.")
            continue
        kind, what = known[key]
        expected = {bool: "true or false", str: "a string", int: "a whole number",
                    Path: "a file path (a string)"}.get(kind, kind.__name__)
        if value is None:
            continue  # JSON null: the default
        wanted = str if kind is Path else kind
        if (not isinstance(value, wanted) or isinstance(value, bool) and kind is not bool
                or kind is Path and not str(value).strip()):
            raise ConfigError(
                f"reporterOptions.{key} of the {name} reporter ({what}) must be {expected}; found {value!r}."
            )
        if kind is Path:
            _check_output_path(name, key, str(value), project_root)
    return warnings


def _check_output_path(name: str, key: str, value: str, project_root: Path) -> None:
    """Refuse, before the run, an output path that can never be written as a file."""
    path = resolve_path(project_root, value.replace("[hash]", "0" * 8))
    try:
        _refuse_unwritable(name, key, value, path)
    except (OSError, ValueError) as err:  # a name too long, a path runner may not look into
        raise ConfigError(f"reporterOptions.{key} of the {name} reporter is {value!r} ({path}): "
                          f"{getattr(err, 'strerror', None) or err}.\nExpected the path of a file to write.") from None


def _refuse_unwritable(name: str, key: str, value: str, path: Path) -> None:
    if path.is_dir():
        file_name = {"json": "report.json", "junit": "junit.xml"}.get(name, "report")
        problem, example = "it is a folder", (Path(value) / file_name).as_posix()
        expected = f"the path of a file to write, such as {example!r}"
    else:
        blocker = next((p for p in path.parents if p.exists()), None)
        if blocker is None or blocker.is_dir():
            return
        problem = f"{str(blocker)!r} is a file, not a folder"
        expected = "the path of a file to write, in a folder that exists or can be made"
    raise ConfigError(
        f"reporterOptions.{key} of the {name} reporter is {value!r} ({path}): {problem}.\nExpected {expected}."
    )


def _reporter_traceback(err: BaseException) -> str:
    """Where a custom reporter's own code raised, and the error: no runner or library frames."""
    return f"{user_frames(err)}\n{error_line(type(err).__name__, err)}".lstrip("\n")


def make_reporter(name: str, options: dict[str, Any] | None, project_root: Path, *,
                  flags: list[str] | None = None) -> Any:
    """Build the reporter ``name`` with ``options`` (``reporterOptions``), then each of ``flags``
    (``--reporter-options`` texts, ``name=value,...`` or JSON; a later one wins per name).

    Raises ``ConfigError`` for an unknown reporter or a bad option value; prints a warning for an
    option a built-in reporter does not read.
    """
    options = dict(options or {})
    if flags:
        from runner.config import parse_cli_values

        for text in flags:
            options.update(parse_cli_values(text, option="--reporter-options"))
    cls = BUILTIN.get(name) or _load_custom(name, project_root)
    for warning in check_options(name, cls, options, project_root):
        print(f"runner: warning: {warning}", file=sys.stderr)
    try:
        # projectRoot lets reporters resolve relative output paths (mochaFile, output).
        reporter = cls({"projectRoot": str(project_root), **options})
    except TypeError as err:
        raise ConfigError(f"reporter {name!r} could not be created with reporterOptions {options!r}: {err}") from err
    except Exception as err:
        tb = _reporter_traceback(err)
        raise ConfigError(f"reporter {name!r} raised {type(err).__name__} when it was created:\n{tb}") from err
    with contextlib.suppress(AttributeError, TypeError):
        setattr(reporter, "runner_name", name)  # noqa: B010 - for messages (a class with __slots__ goes without)
    return reporter
