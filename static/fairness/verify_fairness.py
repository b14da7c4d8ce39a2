import hashlib
import hmac
import json
import sys

V1, V2 = "hmac-sha256-v1", "hmac-sha256-v2"  # the schemes, named in the record's fairness
NATIONS = ["american", "french", "german", "chinese", "dutch", "turkish", "spanish", "italian"]


def message(scheme, seed0, seed1, n):  # what block n of the stream is the HMAC of
    if scheme == V1:  # games before v2: ("a:b", "c") and ("a", "b:c") give the same
        return f"{seed0}:{seed1}:{n}".encode()
    return json.dumps([seed0, seed1, n], separators=(",", ":"), ensure_ascii=True).encode()


def check(record):  # None if the deck and dice are what the seeds give, else why not
    fair, events = record.get("fairness"), record["events"]  # an exported game
    if not isinstance(fair, dict):
        return "no fairness data: the deck and dice are NOT verified"
    scheme, seed, seeds = fair.get("scheme"), fair.get("server_seed"), fair.get("client_seeds")
    if scheme not in (V1, V2):
        return f"unknown scheme {scheme!r}: this verifier knows {V1} and {V2}"
    if seed is None:
        return "no server seed: the game is not over, the deck and dice are NOT verified"
    if not (isinstance(seed, str) and len(seed) == 64 and set(seed) <= set("0123456789abcdef")):
        return "the server seed is not 64 hexadecimal digits"
    if not (isinstance(seeds, list) and len(seeds) == 2 and all(isinstance(s, str) for s in seeds)):
        return "client_seeds is not a pair of strings"
    if not all(len(s) <= 64 and s.isascii() and s.isprintable() for s in seeds):
        return "a client seed is not 0 to 64 characters of printable ASCII"
    if hashlib.sha256(key := bytes.fromhex(seed)).hexdigest() != fair.get("commitment"):
        return "the commitment does not match the server seed"
    blocks = (hmac.digest(key, message(scheme, *seeds, n), "sha256") for n in range(2**63))
    words = (int.from_bytes(block[i : i + 4], "big") for block in blocks for i in range(0, 32, 4))
    rolls = [e for e in events if e["event"]["type"] == "rolled"]  # every roll, rerolls too
    dice = [(e["seq"], d, v) for e in rolls for d, v in enumerate(e["event"]["dice"])]
    sizes = [*range(48, 1, -1), 2] + [6] * len(dice)  # draw(k) for deck, first player, dice
    draws = (next(u % k for u in words if u < 2**32 - 2**32 % k) for k in sizes)  # skips big u
    sailors = [f"{nation}-{value}" for nation in NATIONS for value in ("1", "2", "3a", "3b", "4")]
    deck = sorted(sailors + [f"T{number}" for number in range(1, 9)])  # the 48 cards, as strings
    for i in range(47, 0, -1):  # Fisher-Yates from the end: swap card i and card draw(i + 1)
        deck[i], deck[j] = deck[j := next(draws)], deck[i]
    if (start := events[0]["event"])["type"] != "game_started":
        return "event 1 is not game_started: the record does not begin with the deal"
    if start["deck"] != deck:
        position = next(p for p in range(49) if start["deck"][p : p + 1] != deck[p : p + 1])
        return f"the deck differs from the seeds at position {position}"
    if (first := next(draws)) != (claimed := start["first_player"]) or type(claimed) is not int:
        return f"event 1 (game_started): first_player is {claimed!r}, the seeds give {first}"
    for seq, die, value in dice:
        if value != (given := next(draws) + 1) or type(value) is not int:
            return f"event {seq} (rolled): die {die} is {value!r}, the seeds give {given}"
    return None


def main(arguments):  # python3 verify_fairness.py game.json
    if len(arguments) != 1:
        return "usage: python3 verify_fairness.py game.json"
    try:
        with open(arguments[0], encoding="utf-8") as file:
            record = json.load(file)
    except OSError as error:
        return f"cannot read {arguments[0]}: {error.strerror or error}"
    except (ValueError, RecursionError) as error:  # not UTF-8, not JSON, nested too deep
        return f"{arguments[0]} is not a JSON file: {error}"
    try:
        return check(record)
    except Exception as error:  # a key missing, a value of the wrong type: still a sentence
        return f"the record is malformed, so nothing is verified ({type(error).__name__}: {error})"


if problem := main(sys.argv[1:]):
    sys.exit(problem)  # on standard error, with exit status 1
print("verified fair")
