"""The one exception the engine raises for a command it refuses."""

from __future__ import annotations

# Every code the engine can raise, with what it means. The codes are stable: clients
# and the web API pass them on unchanged.
CODES: dict[str, str] = {
    "bad_command": "the command is not of a known shape",
    "not_a_player": "the seat is not 0 or 1",
    "game_over": "the game has ended",
    "not_your_turn": "it is the other player's turn",
    "must_choose_direction": "the start player must first choose which end of the row is 1",
    "direction_not_expected": "the direction is chosen once, after the round's first roll",
    "already_rolled": "the dice are rolled; place a die or play a trick",
    "roll_first": "roll the dice first",
    "not_enough_dice": "rolling needs at least 2 dice in the supply",
    "must_shanghai": "with 0 or 1 dice left in the supply the player must call Shanghai",
    "cannot_shanghai_yet": "Shanghai needs at least 2 of the player's own dice placed this round",
    "trick_already_used": "only one trick card may be used per round",
    "no_such_trick": "the player holds no such usable trick card",
    "wrong_half": "that trick card has no such half",
    "nation_not_held": "a wild sailor joins only a nationality the player already holds",
    "die_out_of_range": "a die cannot go below 1 or above 6",
    "cannot_abort": "a dealt game cannot be called off; leaving it is resigning, so resign instead",
}


class IllegalCommand(Exception):
    """A command the rules do not allow now; nothing has changed."""

    def __init__(self, code: str, message: str | None = None):
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        self.code = code
        self.message = message or CODES[code][0].upper() + CODES[code][1:] + "."
        super().__init__(f"{code}: {self.message}")

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}
