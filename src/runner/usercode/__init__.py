"""The user's code that runs in runner's own process: the plugins and support files
(``plugins_file``), threads for its blocking calls (``threads``), and tracebacks told with its
frames (``tracebacks``)."""
