"""Run artifacts: spec videos (``video.py``), emptying the artifact folders (``trash.py``) and
checking that they can be written to (``folders.py``).

The submodules are imported on use: ``video`` needs ffmpeg only when a video is recorded.
"""

from __future__ import annotations

__all__ = ["video", "trash", "folders"]
