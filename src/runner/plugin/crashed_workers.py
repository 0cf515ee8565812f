"""``runner run --workers``: a test whose worker process died is not run again.

pytest-xdist's spec-by-spec scheduler (``--dist loadfile``) hands the unfinished part of a dead
worker's spec to another worker, the test that was running included: a test that kills its
process (``os._exit``, a crash in native code, the OOM killer) would kill worker after worker,
until xdist gives up restarting them. Here the test that was running is marked done before the
rest of its spec is handed on; the recorder tells it as failed by the death (xdist's crash report).
"""

from __future__ import annotations

from typing import Any

__all__ = ["make_scheduler"]


def make_scheduler(config: Any, log: Any) -> Any:
    """A ``LoadFileScheduling`` that does not run a crashed worker's test again."""
    from xdist.scheduler import LoadFileScheduling

    class _NoRerunOfTheCrash(LoadFileScheduling):  # type: ignore[misc]
        def remove_node(self, node: Any) -> str | None:
            workload = self.assigned_work.get(node) or {}
            crashed = next((nodeid for unit in workload.values() for nodeid, done in unit.items() if not done),
                           None)
            if crashed is None:
                return super().remove_node(node)  # type: ignore[no-any-return]
            for unit in workload.values():
                if crashed in unit:
                    unit[crashed] = True
            super().remove_node(node)  # hands the rest of the spec on (the crashed test is done)
            return crashed

    return _NoRerunOfTheCrash(config, log)
