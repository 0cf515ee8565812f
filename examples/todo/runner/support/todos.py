"""Helpers of the todo specs: `import support.todos` (this folder is the package `support`).

`add_todo` is a custom command: a spec calls `runner.add_todo("Buy milk")`, and the command log
shows `add_todo('Buy milk')` with the commands it ran under it.
"""

from runner import add_command


@add_command
def add_todo(runner, title):
    """Add a todo through the form and wait for the app to confirm it."""
    runner.get("#title").type(f"{title}{{enter}}")
    runner.get("#toast").should("be.visible").and_("have.text", f'Added "{title}"')
