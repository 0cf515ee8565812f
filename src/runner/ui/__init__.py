"""``runner open``: the interactive mode.

A web app on 127.0.0.1 (aiohttp; a token in its URL) shows the specs, runs them in a child process
(``ui/child.py``, pytest with runner's plugin in "open" mode) and streams what the child tells it
over a pipe (the run's events, the page's screencast, studio's recorded commands) to the page.
"""
