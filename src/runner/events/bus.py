"""One bus per process: publishers hand it events, subscribers receive them in order.

``publish`` may be called from any thread (the test thread, the engine loop that serves
requests). Delivery is synchronous and serialized: each event reaches every subscriber, in the
order they subscribed, before the next event is delivered. An event published by a subscriber
while it handles another is queued and delivered after it, so every subscriber sees one order.

``transform`` (the run session sets it to hide the run's secrets, see runner.redaction) is applied
to each event before any subscriber sees it, so every consumer gets the same, redacted, event.

A subscriber that raises is unsubscribed and the error handed to ``on_error``: one broken
consumer never stops the run or the others. A ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM during
``runner run``) that lands in a subscriber does not cost the others the event: it is raised again
once the event, and those queued behind it, reached every subscriber.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from .model import Event

__all__ = ["EventBus", "Subscriber"]

Subscriber = Callable[[Event], None]


class EventBus:
    """The run's events, delivered to subscribers."""

    def __init__(self, on_error: Callable[[Any, BaseException], None] | None = None) -> None:
        self._subscribers: list[tuple[Subscriber, tuple[type[Event], ...] | None]] = []
        self._lock = threading.RLock()
        self._queue: deque[Event] = deque()
        self._delivering = False
        self._on_error = on_error
        #: applied to every event before it is delivered (the session's redaction)
        self.transform: Callable[[Event], Event] | None = None

    def subscribe(self, subscriber: Subscriber, kinds: tuple[type[Event], ...] | None = None) -> Callable[[], None]:
        """Deliver events (only those of ``kinds``, when given) to ``subscriber``; returns the
        function that unsubscribes it."""
        entry = (subscriber, kinds)
        with self._lock:
            self._subscribers = [*self._subscribers, entry]

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = [e for e in self._subscribers if e is not entry]

        return unsubscribe

    def publish(self, event: Event) -> None:
        """Deliver ``event`` to every subscriber (after those published before it)."""
        transform = self.transform
        if transform is not None:
            event = transform(event)
        with self._lock:
            self._queue.append(event)
            if self._delivering:
                return  # a subscriber published it: delivered when the current event is done
            self._delivering = True
            interrupted: BaseException | None = None
            try:
                while self._queue:
                    interrupted = self._deliver(self._queue.popleft()) or interrupted
            finally:
                self._delivering = False
            if interrupted is not None:
                raise interrupted

    def _deliver(self, event: Event) -> BaseException | None:
        """Hand ``event`` to every subscriber; returns the interruption one of them got."""
        interrupted: BaseException | None = None
        for entry in self._subscribers:
            subscriber, kinds = entry
            if kinds is not None and not isinstance(event, kinds):
                continue
            try:
                subscriber(event)
            except Exception as err:  # noqa: BLE001 - one broken consumer must not stop the run
                self._subscribers = [e for e in self._subscribers if e is not entry]
                if self._on_error is not None:
                    self._on_error(subscriber, err)
            except BaseException as err:  # KeyboardInterrupt: the run ends, and its reports need this
                interrupted = interrupted or err
        return interrupted
