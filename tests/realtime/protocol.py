"""The message shapes of docs/protocol.md, as declared in ``games.socket_messages``."""

from __future__ import annotations

from functools import cache

from jsonschema import Draft202012Validator


@cache
def validators() -> dict[str, Draft202012Validator]:
    from games.socket_messages import schemas

    found = {}
    for name, schema in schemas().items():
        Draft202012Validator.check_schema(schema)
        found[name] = Draft202012Validator(schema)
    return found


def check(message: dict, side: str = "server") -> dict:
    """Raise unless ``message`` has the documented shape for its type; return it."""
    name = f"{side}.{message.get('type')}"
    validator = validators().get(name)
    assert validator is not None, f"{name} is not documented in docs/protocol.md"
    errors = sorted(validator.iter_errors(message), key=lambda e: list(e.path))
    assert not errors, f"{name}: " + "; ".join(
        f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5]
    )
    return message


async def opponent_arrived(socket, state: str = "here") -> dict:
    """The ``presence`` frame a player's board gets as the opponent's board opens (or
    closes: ``state`` then says where the opponent is now); checked, and returned."""
    frame = check(await socket.receive_json_from(timeout=5))
    assert frame["type"] == "presence" and frame["state"] == state, frame
    return frame
