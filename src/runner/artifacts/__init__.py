"""Run artifacts: what a run leaves on disk, and the rules of the folders they go to.

Spec videos (``video.py``; ``video_encoder.py`` pipes the frames to ffmpeg in the Matroska
container ``matroska.py`` writes), where a
screenshot goes (``screenshots.py``), which traces are kept (``traces.py``), the events file's
rules (``events_file.py``), emptying the artifact folders (``trash.py``) and checking that they
can be written to (``folders.py``).

The submodules are imported on use: ``video`` needs ffmpeg only when a video is recorded.
"""

from __future__ import annotations

__all__ = ["video", "trash", "folders"]
