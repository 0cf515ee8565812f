"""Print every package and module of src/runner/ with its docstring's first line, as the tree
of docs/architecture.md ("Modules, one job each") draws them: a draft for whoever writes that
map again.

    .venv/bin/python scripts/architecture_map.py

A package is its folder (`ui/`) with the first line of its `__init__.py`; a module without a
docstring is printed with "(no docstring)", so the gap shows. The map in the document is written
by a person (its jobs may say more than a first line); tests/unit/test_architecture_doc.py checks
that it names exactly the modules that exist.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "runner"
JOB_COLUMN = 23  # where the doc's tree starts the job, at the top level


def first_line(path: Path) -> str:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not docstring:
        return "(no docstring)"
    return docstring.strip().splitlines()[0]


def lines(folder: Path, depth: int) -> list[str]:
    out = []
    indent = "  " * depth
    width = JOB_COLUMN - 2 + 2 * (depth - 1)
    entries = sorted(folder.iterdir(), key=lambda p: (p.name != "__init__.py", p.name))
    for path in entries:
        if path.is_dir() and (path / "__init__.py").is_file():
            job = first_line(path / "__init__.py")
            out.append(f"{indent}{(path.name + '/').ljust(width - 1)} {job}")
            out.extend(lines(path, depth + 1))
        elif path.suffix == ".py" and not (path.name == "__init__.py" and depth > 1):
            out.append(f"{indent}{path.name.ljust(width - 1)} {first_line(path)}")
    return out


def main() -> None:
    print("src/runner/")
    print("\n".join(lines(SRC, 1)))


if __name__ == "__main__":
    main()
