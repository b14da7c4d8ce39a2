"""Moderators' admin actions in tests."""


def act(client, path, action, pks, **fields):
    """Run an admin action with its reason form already filled in."""
    data = {"action": action, "_selected_action": [str(pk) for pk in pks], "apply": "1", **fields}
    return client.post(path, data)
