"""The run: one test process's session, and everything that starts, splits, guards and ends a run.

Its modules sit on both sides of the pytest plugin (see docs/architecture.md, Layers):

- above it, what starts, splits, guards and ends a run: ``launch`` (``run_pytest``, the one place
  pytest starts), ``start`` (the events file and the trash at ``run.started``), ``guard`` (the
  watched test process), ``interrupts`` (Ctrl-C, SIGTERM), ``lock`` (one run per artifact path),
  ``workers`` (``--workers``), ``shards`` (``--shard``, ``--record-durations``), ``merge``
  (``runner merge``);
- below it, what the plugin drives: ``session`` (``RunSession``, the coordinator) and its parts,
  ``network`` (the interceptor, blockHosts, client certificates), ``recordings`` (videos and
  traces) and ``component`` (component mode), and what they use: ``browser_host`` (the loop and
  the browser), ``route_events`` (net's records as events), ``site`` (fileServerFolder served),
  ``spec_videos``, ``specs`` (which spec files), ``live_view`` (the screencast) and
  ``shard_plan`` (specs packed into shards).
"""
