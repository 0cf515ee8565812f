"""pytest's ``-k`` and ``-m`` expressions given to ``runner run`` (after ``--``), checked before the
run: a bad one is one message before anything is launched or replaced, with or without workers
(pytest-xdist's workers would each fail on it, and the controller with an INTERNALERROR)."""

from __future__ import annotations

__all__ = ["expression_problem"]

_OPTIONS = {"-k": "-k (test names)", "-m": "-m (marks)"}


def expression_problem(args: list[str]) -> str | None:
    """What is wrong with the first bad ``-k``/``-m`` expression of ``args`` (None: nothing)."""
    try:
        from _pytest.mark.expression import Expression
    except ImportError:  # pragma: no cover - another pytest: pytest itself says it
        return None
    for option, expression in _expressions(args):
        try:
            Expression.compile(expression)
        except Exception as err:  # noqa: BLE001 - pytest raises SyntaxError or its ParseError by version
            detail = getattr(err, "msg", None) or getattr(err, "message", None) or str(err)
            return (f"pytest's {_OPTIONS[option]} expression {expression!r} is not valid: {detail}. "
                    "Write names and marks joined by and, or, not and parentheses "
                    "(-- -k 'login and not slow').")
    return None


def _expressions(args: list[str]) -> list[tuple[str, str]]:
    found = []
    for index, arg in enumerate(args):
        if arg == "--":
            break
        for option in _OPTIONS:
            if arg == option and index + 1 < len(args):
                found.append((option, args[index + 1]))
            elif arg.startswith(option) and len(arg) > 2 and not arg.startswith("--"):
                found.append((option, arg[2:].removeprefix("=")))
    return found
