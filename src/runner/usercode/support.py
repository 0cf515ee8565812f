"""The project's support folder as the importable package ``support``.

Specs cannot import the project's helpers by their path: the default project folder ``runner/``
has the name of runner's own package, so ``from runner.support.login import login`` looks in
runner, not in the project (and pytest's importlib import mode puts no project folder on
``sys.path``). So the folder that holds the support file (``supportFile``, default
``runner/support/index.py``) is installed as the package named :data:`PACKAGE` before any spec is
collected: ``from support.login import login`` imports ``runner/support/login.py``, and the
support file itself is the module ``support.index`` (``support`` itself when it is an
``__init__.py``), imported once: a spec that imports it gets the module the run loaded.

The name cannot clash with runner's package, and stays the same whatever the project folder is
called or where ``supportFile`` points. Each load forgets the previous ``support`` modules, so
``runner open`` (which loads again in the same process) sees the edited helpers.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from runner.usercode.plugins_file import load_module

__all__ = ["PACKAGE", "forget_support", "install_support", "load_support"]

#: The name specs import the support folder by.
PACKAGE = "support"


def load_support(path: Path) -> ModuleType:
    """Install ``path``'s folder as the package :data:`PACKAGE` and import the support file in it.

    Raises ``ConfigError`` (naming the file, with the user's frames) when the file or a helper it
    imports raises while it is loaded.
    """
    package = install_support(path.parent)
    if path.name == "__init__.py":
        return package
    name = f"{PACKAGE}.{path.stem}"
    module = load_module(path, name)
    setattr(package, path.stem, module)  # as `import support.index` would
    return module


def install_support(folder: Path) -> ModuleType:
    """Install ``folder`` as the package :data:`PACKAGE` (its ``__init__.py`` run, if it has
    one), in place of any earlier one. Raises ``ConfigError`` when the ``__init__.py`` raises."""
    forget_support()
    folder = folder.resolve()
    init = folder / "__init__.py"
    if init.is_file():
        return load_module(init, PACKAGE, package_of=folder)
    package = _namespace(folder)
    sys.modules[PACKAGE] = package
    return package


def forget_support() -> None:
    """Drop the package and every module imported from it (they are imported afresh)."""
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def _namespace(folder: Path) -> ModuleType:
    """A package over ``folder`` that has no ``__init__.py`` (what Python's namespace packages are)."""
    spec = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
    spec.submodule_search_locations = [str(folder)]
    package = importlib.util.module_from_spec(spec)
    package.__path__ = [str(folder)]
    return package
