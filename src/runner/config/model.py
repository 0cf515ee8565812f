"""``Config``: the resolved, validated, immutable configuration of one run, with sources."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from runner.casing import snake_to_camel
from runner.config.accessors import OptionAccessors
from runner.config.paths import resolve_path
from runner.config.retries import RetryPolicy, global_only_problem
from runner.config.schema import option_names, option_schema, override_level
from runner.config.validate import Problem, problems_error, problems_of, suggest
from runner.errors import UsageError

__all__ = ["Config", "NOTICES", "SOURCE_LABELS", "collapse_base_url", "node_version_warning"]

SOURCE_LABELS: tuple[str, ...] = (
    "default",
    "config",
    "e2e",
    "component",
    "envFile",
    "env",
    "cli",
    "plugin",
    "mode",  # set by the kind of run: `runner run` never watches files and keeps no tests in memory
    "suite",
    "test",
)
"""Where a value can come from, lowest precedence first."""

Level = Literal["plugin", "suite", "test"]


def collapse_base_url(values: dict[str, Any]) -> None:
    """Collapse a run of trailing slashes on ``baseUrl`` to one (in place)."""
    base_url = values.get("baseUrl")
    if isinstance(base_url, str):
        values["baseUrl"] = re.sub(r"//+$", "/", base_url)


def node_version_warning(where: str) -> str:
    """The deprecation warning for ``nodeVersion``, naming where it was set."""
    return (
        f"The `nodeVersion` configuration option (set in {where}) is deprecated and has no effect: "
        "plugins files run in the Python interpreter that runs runner. Remove it."
    )


def _fetch_polyfill_notice(where: str) -> str:
    return (f"`experimentalFetchPolyfill` (set in {where}) changes nothing: runner intercepts the page's "
            "fetch() natively, so no polyfill is installed.")


def _project_id_notice(where: str) -> str:
    return (f"`projectId` (set in {where}) is kept but not used: runner has no hosted dashboard, "
            "so nothing is recorded or uploaded.")


#: Options kept for compatibility that runner cannot honour as the original did: a one-line
#: notice at start when a user sets one (to a value that would mean something there).
NOTICES: dict[str, tuple[Callable[[Any], bool], Callable[[str], str]]] = {
    "nodeVersion": (lambda value: True, node_version_warning),
    "experimentalFetchPolyfill": (lambda value: value is True, _fetch_polyfill_notice),
    "projectId": (lambda value: value is not None, _project_id_notice),
}


def _checked_overrides(
    overrides: Mapping[str, Any], known: set[str], *, level: Level, root: Path, origin: str
) -> dict[str, Any]:
    """``overrides`` by camelCase name (snake_case names of ``known`` options are converted),
    checked for ``level``. Raises ``ConfigError`` listing every problem: what the schema
    rejects, and at suite or test level an option that can never be overridden."""
    normalised: dict[str, Any] = {}
    for key, value in overrides.items():
        name = str(key)
        if name not in known and snake_to_camel(name) in known:
            name = snake_to_camel(name)
        normalised[name] = value
    read_only: list[str] = []
    if level in ("suite", "test"):
        read_only = [
            name for name in normalised if name in known and override_level(name) == "never"
        ]
    lines = [
        f"The `{name}` configuration can never be overridden because it is a read-only "
        "configuration option."
        for name in read_only
    ]
    global_only = global_only_problem(normalised.get("retries")) if level in ("suite", "test") else None
    if global_only is not None:
        lines.append(global_only)
        read_only.append("retries")  # one message for it, not the schema's too
    problems: list[Problem] = [
        p
        for p in problems_of(normalised, flat=True, root=root)
        if p.top not in read_only
    ]
    texts = lines + [p.text for p in problems]
    if texts:
        raise problems_error(f"The configuration set by {origin} is invalid", texts)
    return normalised


class Config(OptionAccessors, Mapping[str, Any]):
    """The resolved configuration: option values by camelCase name, each with its source.

    Read it as ``config.base_url`` (typed snake_case properties), ``config["baseUrl"]`` or
    ``config.get("baseUrl", default)``. It is immutable: mutable values come out as copies, and
    :meth:`merged` returns a new ``Config``. Build one with :func:`runner.config.load_config`.
    """

    __slots__ = (
        "_values",
        "_sources",
        "_details",
        "_env_sources",
        "_env_details",
        "_project_root",
        "_config_file",
        "_testing_type",
        "_warnings",
    )

    _values: dict[str, Any]
    _sources: dict[str, str]
    _details: dict[str, str]
    _env_sources: dict[str, str]
    _env_details: dict[str, str]
    _project_root: Path
    _config_file: Path | None
    _testing_type: str
    _warnings: tuple[str, ...]

    def __init__(
        self,
        values: Mapping[str, Any],
        *,
        sources: Mapping[str, str],
        details: Mapping[str, str],
        env_sources: Mapping[str, str],
        env_details: Mapping[str, str],
        project_root: Path,
        config_file: Path | None,
        testing_type: str,
        warnings: tuple[str, ...] | list[str] = (),
    ) -> None:
        state = {
            "_values": copy.deepcopy(dict(values)),
            "_sources": dict(sources),
            "_details": dict(details),
            "_env_sources": dict(env_sources),
            "_env_details": dict(env_details),
            "_project_root": project_root,
            "_config_file": config_file,
            "_testing_type": testing_type,
            "_warnings": tuple(warnings),
        }
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"Config is immutable: cannot set {name!r}. Use config.merged({{...}}, source=..., "
            "origin=...) to derive a new one."
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Config is immutable: cannot delete {name!r}.")

    # -- mapping access -------------------------------------------------------------------

    def _value(self, key: str) -> Any:
        value = self._values[key]
        return copy.deepcopy(value) if isinstance(value, dict | list) else value

    def __getitem__(self, key: str) -> Any:
        if key not in self._values:
            guess = suggest(key)
            hint = f" Did you mean {guess!r}?" if guess else ""
            raise KeyError(f"{key!r} is not a configuration option.{hint}")
        return self._value(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        where = str(self._config_file) if self._config_file else "defaults"
        return f"<Config {self._testing_type} from {where}>"

    def as_dict(self) -> dict[str, Any]:
        """Every option by camelCase name (no ``e2e``/``component``), as a deep copy."""
        return copy.deepcopy(self._values)

    # -- where values came from ----------------------------------------------------------

    @property
    def sources(self) -> dict[str, str]:
        """Option name -> source label (``default``, ``config``, ``e2e``, ``component``,
        ``envFile``, ``env``, ``cli``, ``plugin``, ``suite``, ``test``)."""
        return dict(self._sources)

    @property
    def env_sources(self) -> dict[str, str]:
        """Name of each ``env`` entry -> source label (as :attr:`sources`)."""
        return dict(self._env_sources)

    def source_detail(self, key: str) -> str:
        """Where an option's value came from, for people: ``"default"``, ``"runner.json"``,
        ``"runner.json e2e block"``, ``"environment variable RUNNER_BASE_URL"``, ``"--config"``, ..."""
        if key not in self._details:
            raise KeyError(f"{key!r} is not a configuration option.")
        return self._details[key]

    def env_source_detail(self, name: str) -> str:
        """Where the ``env`` entry ``name`` came from (as :meth:`source_detail`)."""
        if name not in self._env_details:
            raise KeyError(f"{name!r} is not set in env.")
        return self._env_details[name]

    # -- run facts -----------------------------------------------------------------------

    @property
    def project_root(self) -> Path:
        """The folder relative paths are resolved against (the config file's folder)."""
        return self._project_root

    @property
    def config_file(self) -> Path | None:
        """The configuration file read, or ``None`` when running on defaults."""
        return self._config_file

    @property
    def testing_type(self) -> str:
        """``"e2e"`` or ``"component"``: which block of runner.json was applied."""
        return self._testing_type

    @property
    def warnings(self) -> list[str]:
        """Warnings found while resolving (deprecated options); show them once per run."""
        return list(self._warnings)

    # -- derived values ------------------------------------------------------------------

    def path(self, key: str) -> Path | None:
        """The folder or file option ``key`` as an absolute path (``None`` when disabled): relative
        to the project root, with a leading ``~`` or ``~user`` expanded to the home folder."""
        if key not in self._values or "x-path" not in option_schema(key):
            paths = [name for name in option_names() if "x-path" in option_schema(name)]
            raise UsageError(
                f"config.path({key!r}): {key!r} is not a folder or file option. "
                f"Expected one of: {', '.join(paths)}."
            )
        value = self._values[key]
        if value is False or value is None:
            return None
        return resolve_path(self._project_root, str(value))

    def retries_for(self, mode: str) -> int:
        """Retries of a failing test in ``"runMode"`` (``runner run``) or ``"openMode"``: with
        a retry strategy, its ``maxRetries`` when the mode is ``true``, else 0."""
        return self.retry_policy(mode).retries

    def retry_policy(self, mode: str) -> RetryPolicy:
        """The retries of ``"runMode"`` or ``"openMode"``: how many, the strategy and its
        options (config/retries.py)."""
        if mode not in ("runMode", "openMode"):
            raise UsageError(f"config.retry_policy({mode!r}): expected 'runMode' or 'openMode'.")
        return RetryPolicy.of(self._values["retries"], mode)

    @property
    def video_crf(self) -> int | None:
        """The CRF of video compression: ``true`` -> 32, ``false`` -> ``None``, a number -> itself."""
        value = self._values["videoCompression"]
        if value is True:
            return 32
        if value is False or value is None:
            return None
        return int(value)

    # -- overrides -----------------------------------------------------------------------

    def merged(
        self,
        overrides: Mapping[str, Any],
        *,
        source: str,
        origin: str,
        level: Level | None = None,
    ) -> Config:
        """A new validated ``Config`` with ``overrides`` applied on top of this one.

        ``source`` is the label recorded for changed values (``"plugin"``, ``"suite"``,
        ``"test"``); ``origin`` says where they came from in messages and in
        :meth:`source_detail` (``"the runner mark on test_x"``). ``level`` defaults to
        ``source`` when that is ``"suite"`` or ``"test"``, else ``"plugin"``. At suite and test
        level an option whose override level is ``never`` is an error. ``env`` is merged into the
        current env (dict update), every other option is replaced. snake_case names are accepted.
        Raises ``ConfigError`` with every problem at once.
        """
        if level is None:
            level = "suite" if source == "suite" else "test" if source == "test" else "plugin"
        checked = _checked_overrides(overrides, set(self._values), level=level, root=self._project_root,
                                     origin=origin)
        return self._apply(checked, source=source, origin=origin)

    def _apply(self, overrides: Mapping[str, Any], *, source: str, origin: str) -> Config:
        values = copy.deepcopy(self._values)
        sources = dict(self._sources)
        details = dict(self._details)
        env_sources = dict(self._env_sources)
        env_details = dict(self._env_details)
        warnings = list(self._warnings)
        for name, value in overrides.items():
            if name == "env":
                for env_name, env_value in value.items():
                    if env_name in values["env"] and values["env"][env_name] == env_value:
                        continue
                    values["env"][env_name] = copy.deepcopy(env_value)
                    env_sources[env_name] = source
                    env_details[env_name] = origin
                    sources["env"], details["env"] = source, origin
                continue
            if values[name] == value and type(values[name]) is type(value):
                continue
            values[name] = copy.deepcopy(value)
            sources[name], details[name] = source, origin
            if name in NOTICES and NOTICES[name][0](value):
                warnings.append(NOTICES[name][1](origin))
        collapse_base_url(values)
        return Config(
            values,
            sources=sources,
            details=details,
            env_sources=env_sources,
            env_details=env_details,
            project_root=self._project_root,
            config_file=self._config_file,
            testing_type=self._testing_type,
            warnings=warnings,
        )
