"""The ``runner`` fixture's commands: what a test calls, grouped by family, with its retrying subjects.

:class:`~runner.commands.api.RunnerCommands` is the fixture (one object over the families:
navigation, page, queries, network, storage, system, screenshots); ``runner.get()`` and its kin
return a :class:`~runner.commands.subject.Subject` (should, traversal, reads, actions, forms) or a
:class:`~runner.commands.values.Value`. Every command reaches the browser through the engine's
verbs and the run through :class:`~runner.commands.context.TestContext`; none imports Playwright.
"""
