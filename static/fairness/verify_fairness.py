import hashlib
import hmac
import json
import sys

with open(sys.argv[1], encoding="utf-8") as file:  # python3 verify_fairness.py game.json
    fair, events = map(json.load(file).get, ["fairness", "events"])  # an exported game
start, (seed0, seed1) = events[0]["event"], fair["client_seeds"]
key = bytes.fromhex(fair.get("server_seed") or sys.exit("no server seed: the game is not over"))
if hashlib.sha256(key).hexdigest() != fair["commitment"]:
    sys.exit("the commitment does not match the server seed")
blocks = (hmac.digest(key, f"{seed0}:{seed1}:{n}".encode(), "sha256") for n in range(2**63))
words = (int.from_bytes(block[i : i + 4], "big") for block in blocks for i in range(0, 32, 4))
dice = [(e["seq"], d, v) for e in events for d, v in enumerate(e["event"].get("dice", []))]
sizes = [*range(48, 1, -1), 2] + [6] * len(dice)  # draw(k) for the deck, first player, dice
draws = (next(u % k for u in words if u < 2**32 - 2**32 % k) for k in sizes)  # skips big words
nations = ["american", "french", "german", "chinese", "dutch", "turkish", "spanish", "italian"]
sailors = [f"{nation}-{value}" for nation in nations for value in ("1", "2", "3a", "3b", "4")]
deck = sorted(sailors + [f"T{number}" for number in range(1, 9)])  # the 48 cards, as strings
for i in range(47, 0, -1):  # Fisher-Yates from the end: swap card i and card draw(i + 1)
    deck[i], deck[j] = deck[j := next(draws)], deck[i]
if start["deck"] != deck:
    position = next(p for p in range(49) if start["deck"][p : p + 1] != deck[p : p + 1])
    sys.exit(f"the deck differs from the seeds at position {position}")
if (first := next(draws)) != (claimed := start["first_player"]):
    sys.exit(f"event 1 (game_started): first_player is {claimed}, the seeds give {first}")
for seq, die, value in dice:
    if value != (given := next(draws) + 1):
        sys.exit(f"event {seq} (rolled): die {die} is {value}, the seeds give {given}")
print("verified fair")
