"""runner's HTTP servers on 127.0.0.1: the static server (``static``) and what it serves: the
application's files (``files``, fileServerFolder), a run's HTML report (``report``, ``runner
show-report``) and Playwright's trace viewer with one trace (``trace``, ``runner show-trace``)."""
