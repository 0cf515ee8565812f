"""The run: one test process's session, and everything that starts, splits, guards and ends a run."""
