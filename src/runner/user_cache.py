"""runner's folder in the user's cache folder: what start-up keeps between runs.

``$XDG_CACHE_HOME/runner``, else ``~/.cache/runner``: node's compile cache for Playwright's driver
(``engine/driver.py``) and the configurations the schema found valid (``config/valid_cache.py``).
Everything in it can be deleted at any time; a folder that cannot be written costs only the gain.
This module imports nothing else of runner, so that the first modules a run loads can use it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["user_cache_folder"]


def user_cache_folder() -> Path | None:
    """runner's cache folder (not created here); None when there is no home folder to put it in."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    try:
        root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    except RuntimeError:  # no home folder to be found
        return None
    return root / "runner"
