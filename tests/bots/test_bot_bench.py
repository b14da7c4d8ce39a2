"""The bots' bench (bench/bot_strength.py) and its independent player (bench/rival.py):
legal and repeatable commands, the rival's independence from the bots, the statistics
and the rating fit, the command line end to end."""

import ast
import json
import math
import pathlib
import random
import sys

import pytest

from bench import bot_strength, rival
from games.rules import decide, evolve, legal_commands, new_game, random_command

RIVAL_SOURCE = pathlib.Path(rival.__file__)


def positions(count: int, seed: int):
    """Positions met along random games (both variants), each with a choice to make."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state, _ = new_game(rng, extra_wild=rng.random() < 0.5)
        while not state.finished and len(found) < count:
            seat = state.turn
            if len(legal_commands(state, seat)) > 2 and rng.random() < 0.3:
                found.append(state)
            for event in decide(state, seat, random_command(state, seat, rng), rng):
                state = evolve(state, event)
    return found


def test_the_rival_plays_legal_commands_in_every_phase():
    seen_phases, tricks = set(), 0
    for state in positions(150, seed=7):
        seat = state.turn
        legal = legal_commands(state, seat)
        command = rival.choose(state, seat, random.Random(1), playouts=24)
        assert command in legal
        assert command["type"] != "resign"
        seen_phases.add(state.phase)
        tricks += any(c["type"] == "trick" for c in legal)
    assert seen_phases == {"turn", "direction", "placement"}
    assert tricks >= 10  # positions with trick cards to play were among them


def test_the_rival_plays_whole_games_to_the_end():
    rng = random.Random(3)
    for extra_wild in (False, True):
        state, _ = new_game(rng, extra_wild=extra_wild)
        while not state.finished:
            seat = state.turn
            if seat == 0:
                command = rival.choose(state, seat, rng, playouts=16)
            else:
                command = random_command(state, seat, rng)
            assert command in legal_commands(state, seat)
            for event in decide(state, seat, command, rng):
                state = evolve(state, event)
        assert state.result.reason == "completed"


def test_the_rival_plays_every_kind_of_command():
    """Over many positions it rolls, places, chooses ends and calls Shanghai."""
    kinds = set()
    for state in positions(200, seed=11):
        kinds.add(rival.choose(state, state.turn, random.Random(5), playouts=40)["type"])
    assert {"roll", "place", "shanghai", "direction"} <= kinds


def test_the_rival_is_repeatable_for_a_seed():
    for state in positions(25, seed=19):
        first = rival.choose(state, state.turn, random.Random(42))
        again = rival.choose(state, state.turn, random.Random(42))
        assert first == again


def test_the_rival_does_not_see_the_deck_order():
    rng = random.Random(8)
    for state in positions(20, seed=23):
        other = state.__class__(**{**_fields(state), "deck": tuple(reversed(state.deck))})
        seed = rng.getrandbits(32)
        assert rival.choose(state, state.turn, random.Random(seed), playouts=40) == (
            rival.choose(other, other.turn, random.Random(seed), playouts=40)
        )


def _fields(state):
    return {name: getattr(state, name) for name in state.__dataclass_fields__}


def test_the_rival_imports_only_the_rules_engine_and_the_standard_library():
    tree = ast.parse(RIVAL_SOURCE.read_text())
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            modules.append(node.module)
    assert modules
    for module in modules:
        top = module.split(".")[0]
        if top == "games":
            assert module == "games.rules" or module.startswith("games.rules."), module
        else:
            assert top in sys.stdlib_module_names or top == "__future__", module


def test_wilson_interval():
    low, high = bot_strength.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    low, high = bot_strength.wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    # a draw counts half: 45 wins and 10 draws in 100 is the same as 50 points
    assert bot_strength.wilson(45 + 10 * 0.5, 100) == bot_strength.wilson(50, 100)
    assert bot_strength.wilson(0, 0) == (0.0, 1.0)


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert bot_strength.percentile(values, 0.5) == 50.0
    assert bot_strength.percentile(values, 0.99) == 99.0
    assert bot_strength.percentile([3.0], 0.99) == 3.0
    assert bot_strength.percentile([], 0.5) == 0.0


def test_specs():
    assert bot_strength.parse_spec("admiral@200") == ("admiral", 200)
    assert bot_strength.parse_spec("rival@50") == ("rival", 50)
    assert bot_strength.parse_spec("rival") == ("rival", None)
    assert bot_strength.parse_spec("greedy") == ("greedy", None)
    for bad in ("captain@5", "nobody", "admiral@x", "admiral@0", "random@3", "admiral@"):
        with pytest.raises(ValueError):
            bot_strength.parse_spec(bad)
    assert bot_strength.parse_pairings("admiral@40:captain, rival:greedy,greedy:rival") == [
        ("admiral@40", "captain"),
        ("rival", "greedy"),
    ]
    with pytest.raises(ValueError):
        bot_strength.parse_pairings("captain-greedy")


def test_default_pairings():
    pairs = bot_strength.default_pairings()
    assert len({frozenset(p) for p in pairs}) == len(pairs)
    for other in ("rival", "boatswain", "captain"):
        assert {"admiral", other} in [set(p) for p in pairs]
    for other in ("random", "greedy", "deckhand", "boatswain", "captain"):
        assert {"rival", other} in [set(p) for p in pairs]
    curve = [a for a, b in pairs if a.startswith("admiral@") and b == "captain"]
    assert len(curve) == 3
    budgets = sorted(bot_strength.parse_spec(a)[1] for a in curve)
    assert budgets[-1] < bot_strength.ADMIRAL_PLAYOUTS


def expected_rate(a: float, b: float) -> float:
    return 1 / (1 + 10 ** ((b - a) / 400))


TRUE = {"random": 0.0, "greedy": 450.0, "deckhand": 300.0, "captain": 700.0, "rival": 600.0}


def test_the_fit_recovers_known_ratings():
    players = list(TRUE)
    results = []
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            n = 4000
            results.append((a, b, n * expected_rate(TRUE[a], TRUE[b]), n))
    ladder = bot_strength.fit_ratings(results)
    assert ladder["random"][0] == 0.0
    for name, rating in TRUE.items():
        assert ladder[name][0] == pytest.approx(rating, abs=6)
    order = [row[0] for row in bot_strength.ladder_rows(ladder)]
    assert order == sorted(TRUE, key=lambda name: -TRUE[name])


def test_the_fit_of_sampled_games_holds_the_truth_in_its_intervals():
    rng = random.Random(2026)
    players = list(TRUE)
    results = []
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            n = 600
            p = expected_rate(TRUE[a], TRUE[b])
            wins = sum(rng.random() < p for _ in range(n))
            results.append((a, b, float(wins), n))
    ladder = bot_strength.fit_ratings(results)
    inside = 0
    for name, rating in TRUE.items():
        fitted, low, high, games = ladder[name]
        assert abs(fitted - rating) < 80
        inside += low <= rating <= high
        assert games == 600 * (len(players) - 1)
    assert inside >= len(TRUE) - 1
    ranked = [row[0] for row in bot_strength.ladder_rows(ladder)]
    assert ranked[0] == "captain" and ranked[-1] == "random"
    # an interval narrows with the games behind it
    wider = bot_strength.fit_ratings([(a, b, w / 10, n // 10) for a, b, w, n in results])

    def span(fit):
        return fit["captain"][2] - fit["captain"][1]

    assert span(wider) > 2 * span(ladder)


def test_a_clean_sweep_has_a_finite_rating_and_unlinked_players_are_left_out():
    ladder = bot_strength.fit_ratings(
        [("captain", "random", 100.0, 100), ("greedy", "rival", 30.0, 60)]
    )
    assert set(ladder) == {"captain", "random"}
    assert math.isfinite(ladder["captain"][0]) and ladder["captain"][0] > 500


def test_targets():
    def pairing(first, second, rate, low, high, median=10.0, p99=20.0):
        times = {"decisions": 5, "median_ms": median, "p99_ms": p99, "longest_ms": p99}
        times["mean_ms"] = median
        return {
            "first": first,
            "second": second,
            "win_rate": rate,
            "interval": [low, high],
            "first_time": times,
            "second_time": times,
        }

    met, missed = bot_strength.check_targets([pairing("admiral", "captain", 0.6, 0.57, 0.63)])
    assert not missed and len(met) == 3  # the rate and both sides' times
    # the same pairing the other way round, with the admiral's interval reaching 55%
    _, missed = bot_strength.check_targets([pairing("captain", "admiral", 0.42, 0.39, 0.46)])
    assert missed == ["admiral vs captain: interval above 55%"]
    _, missed = bot_strength.check_targets([pairing("admiral", "rival", 0.7, 0.6, 0.8, p99=700)])
    assert missed == ["the admiral's time in admiral vs rival"]
    _, missed = bot_strength.check_targets([pairing("captain", "greedy", 0.74, 0.7, 0.78)])
    assert missed == ["captain vs greedy: at least 75%"]


def test_the_two_games_of_a_pair_have_the_same_luck():
    def throws(dice):
        return [dice.randint(1, 6) for _ in range(40)]

    state, dice = bot_strength.luck(10)
    again, same = bot_strength.luck(11)
    other, different = bot_strength.luck(12)
    assert state == again and state != other
    assert state.extra_wild != other.extra_wild  # the variant in every other pair
    assert [throws(d) for d in dice] == [throws(d) for d in same]
    assert throws(different[0]) != throws(bot_strength.luck(12)[1][1])  # a stream per seat
    assert throws(bot_strength.luck(13)[1][0]) != throws(bot_strength.luck(10)[1][0])


def test_the_fast_policies_play_as_players():
    assert bot_strength.parse_spec("judged_start") == ("judged_start", None)
    with pytest.raises(ValueError):
        bot_strength.parse_spec("judged@5")
    rng = random.Random(4)
    for state in positions(40, seed=31):
        for name in ("judged", "judged_start", "keen"):
            command = bot_strength.player(name)(state, state.turn, rng)
            assert command in legal_commands(state, state.turn) and command["type"] != "resign"


def test_the_command_line_end_to_end(tmp_path, capsys):
    first = tmp_path / "runs" / "first.json"  # a folder the bench makes
    status = bot_strength.main(
        ["--games", "2", "--processes", "1", "--pairings", "greedy:random", "--json", str(first)]
    )
    assert status == 0
    document = json.loads(first.read_text())
    (pairing,) = document["pairings"]
    assert (pairing["first"], pairing["second"], pairing["games"]) == ("greedy", "random", 2)
    assert pairing["first_time"]["decisions"] > 0
    assert {row["player"] for row in document["ladder"]} == {"greedy", "random"}
    second = tmp_path / "second.json"
    status = bot_strength.main(
        [
            "--games",
            "2",
            "--processes",
            "1",
            "--pairings",
            "rival@8:greedy",
            "--merge",
            str(first),
            "--json",
            str(second),
            "--markdown",
        ]
    )
    assert status == 0
    document = json.loads(second.read_text())
    assert [(p["first"], p["second"]) for p in document["pairings"]] == [
        ("rival@8", "greedy"),
        ("greedy", "random"),
    ]
    assert {row["player"] for row in document["ladder"]} == {"rival@8", "greedy", "random"}
    out = capsys.readouterr().out
    assert "| rival@8 vs greedy |" in out and "| rank | player |" in out
    assert bot_strength.main(["--games", "0", "--merge", str(first), str(second)]) == 0
    out = capsys.readouterr().out  # nothing played: the ladder of the two runs
    assert "merged from earlier runs: 2 pairings" in out and "rival@8" in out


def test_the_kept_ladder_runs_can_be_merged():
    kept = sorted((pathlib.Path(__file__).parents[2] / "bench" / "ladder").glob("*.json"))
    assert kept, "the ladder's runs are kept in bench/ladder"
    results = []
    for path in kept:
        for p in json.loads(path.read_text())["pairings"]:
            bot_strength.parse_spec(p["first"])
            bot_strength.parse_spec(p["second"])
            assert 0 <= p["points"] <= p["games"] and p["win_rate"] == p["points"] / p["games"]
            results.append((p["first"], p["second"], p["points"], p["games"]))
    ladder = bot_strength.fit_ratings(results, anchor="captain")
    assert "admiral" in ladder and "judged_start" in ladder
