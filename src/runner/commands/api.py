"""The ``runner`` fixture: every command a test calls.

Commands run at once and return a value (there is no command queue). Queries return retrying
subjects (``subject.py``). Names follow ``shared/spec/python-api.md``; Python keywords get a
trailing underscore.

Each family of commands is a module of its own; :class:`RunnerCommands` is all of them:

==================  ===========================================================================
``navigation.py``   ``visit``, ``mount``, ``go``, ``reload``: load a document (tabs too)
``page.py``         ``url``, ``location``, ``hash``, ``title``, ``viewport``, ``window``, ``document``,
                    ``evaluate``: the loaded page, its window and its own JavaScript
``queries.py``      ``get``, ``contains``, ``wrap``, ``frame``: the subjects a chain starts from
``network.py``      ``intercept``, ``wait``, ``requests``, HAR, ``request``: the page's traffic
``storage.py``      cookies, local and session storage, ``session``: what the browser keeps for a site
``system.py``       ``config``, ``env``, ``log``, ``fixture``, ``exec``, ``task``: outside the page
``screenshots.py``  ``screenshot``
``a11y.py``         ``check_a11y``: axe-core's accessibility checks of the page or a subject
``scrolling.py``    ``scroll_to``: the page scrolled
``within.py``       ``within``: the queries narrowed to an element
``tabs.py``         ``popup``: a popup or new tab, driven by a runner of its own
``clock.py``        ``clock``: the page's time, paused and moved by the test
``conditions.py``   ``network_conditions``: the page's network made slow or offline
``custom.py``       the project's own commands (``add_command``), looked up last
==================  ===========================================================================
"""

from __future__ import annotations

from runner.commands.a11y import A11yCommands
from runner.commands.clock import ClockCommands
from runner.commands.conditions import ConditionCommands
from runner.commands.custom import CustomCommands
from runner.commands.navigation import NavigationCommands
from runner.commands.network import NetworkCommands
from runner.commands.page import PageCommands
from runner.commands.queries import QueryCommands
from runner.commands.screenshots import ScreenshotCommands
from runner.commands.scrolling import ScrollCommands
from runner.commands.storage import StorageCommands
from runner.commands.system import SystemCommands
from runner.commands.tabs import TabCommands
from runner.commands.within import WithinCommands

__all__ = ["RunnerCommands"]


class RunnerCommands(SystemCommands, NavigationCommands, PageCommands, QueryCommands, NetworkCommands,
                     StorageCommands, ScreenshotCommands, A11yCommands, ScrollCommands, WithinCommands,
                     TabCommands, ClockCommands, ConditionCommands, CustomCommands):
    """What the ``runner`` fixture gives a test.

    The families are base classes rather than objects it delegates to: a test calls
    ``runner.visit`` and ``runner.intercept`` on one object, so every command must be a method
    of it, and a delegate per family would repeat each signature and docstring once more. They
    share nothing but :class:`~runner.commands.base.CommandsBase`'s state (the test's context
    and what the run hands the fixture) and call no method of one another, so each module reads
    on its own. A new command goes into the module of its family; a new family is a new module
    and one more base here.
    """
