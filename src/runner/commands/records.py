"""Small value types handed to tests: dicts that also answer to snake_case and camelCase attributes."""

from __future__ import annotations

from typing import Any

from runner.casing import camel_to_snake, snake_to_camel

__all__ = ["Record"]


class Record(dict[str, Any]):
    """A dict whose keys are also attributes, under their snake_case and camelCase names.

    ``Record(status_code=200).statusCode == 200`` and ``record["status_code"] == 200``.
    """

    def __getattr__(self, name: str) -> Any:
        for key in (name, camel_to_snake(name), snake_to_camel(name)):
            if key in self:
                return self[key]
        raise AttributeError(f"{type(self).__name__} has no field {name!r}; it has: {', '.join(self)}")

    def __getitem__(self, key: str) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        for alt in (camel_to_snake(key), snake_to_camel(key)):
            if dict.__contains__(self, alt):
                return dict.__getitem__(self, alt)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        if isinstance(key, str):
            return dict.__contains__(self, camel_to_snake(key)) or dict.__contains__(self, snake_to_camel(key))
        return False

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        try:
            return self[key]
        except KeyError:
            return default
