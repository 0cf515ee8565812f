"""The plugins file: runs in runner's own process before the specs."""

created = []


def setup(on, config):
    def remember(title):
        created.append(title)
        return len(created)

    on("task", {
        "remember": remember,
        "remembered": lambda: list(created),
    })
    # A returned dict changes the configuration for the whole run.
    return {"env": {**config["env"], "fromPlugins": True}}
