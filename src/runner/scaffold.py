"""``runner init``: a new project scaffolded (runner.json, an example spec, its page, a fixture,
the support and plugins files), never overwriting a file that exists."""
