"""The HTML report of a run (``reportFolder``): a static folder built from the run's events.

:class:`HtmlReport` is the builder (a bus subscriber, or fed an events file); :func:`folder_refusal`
says before a run why a folder will not be used. See ``report.py`` for the folder's layout and
``docs/report.md`` for what the page shows.
"""

from runner.reporters.html.folder import MARKER, folder_refusal, is_report_folder, overlap_refusal
from runner.reporters.html.report import HtmlReport

__all__ = ["HtmlReport", "MARKER", "folder_refusal", "is_report_folder", "overlap_refusal"]
