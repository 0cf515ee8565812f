"""What every test of the suite needs of its process."""

from __future__ import annotations

import signal


def pytest_configure(config: object) -> None:
    # A suite started in the background by a non-interactive shell (`cmd &`, nohup) inherits SIGINT
    # ignored, and passes it on to every process it starts: the tests of Ctrl-C would time out.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
