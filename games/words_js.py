"""The words of the board's JavaScript (static/js/words.js), in the active language.

The templates are written %-style like every other sentence of the game and handed to
the JavaScript with ``{name}`` placeholders instead ("%(name)s won" → "{name} won").
Where a count changes the words, the entry is ``{"one": …, "other": …}`` and the
JavaScript picks the form with the language's plural rules.
"""

from __future__ import annotations

from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _

from accounts.models import BOT_ACCOUNT_MARK, BOT_LEVELS, bot_mark

from . import words


class _Braces(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _js(template: str) -> str:
    """A %-style template as the JavaScript fills it."""
    return template % _Braces()


def _count(forms) -> dict:
    """``forms(n)`` (an ngettext call) as the forms for one and for more."""
    return {"one": _js(forms(1)), "other": _js(forms(2))}


def words_json() -> dict:
    """Every word and sentence template the board's JavaScript shows, in the active language."""
    nations, codes = words.nation_names(), words.nation_codes()
    resign = words.describe_command({"type": "resign"})
    return {
        "language": get_language() or "en",
        "label": _js(pgettext("a label before what it names", "%(label)s:")),
        "nations": {n: {"name": nations[n], "code": codes[n]} for n in nations},
        "actions": words.action_names(),
        "directions": words.direction_names(),
        "bots": {level: bot_mark(level) for level in [*dict(BOT_LEVELS), BOT_ACCOUNT_MARK]},
        "cards": {
            "none": _("no card"),
            "sailor": _js(pgettext("card, read aloud", "%(nation)s sailor, value %(value)s")),
            "trick": _js(_("Dirty trick: %(wild)s or %(action)s")),
            "wild_value": _js(pgettext("value of a wild sailor", "%(value)s (wild)")),
            "die": _js(_("%(name)s's die showing %(value)s")),
            "a_die": _js(_("a die showing %(value)s")),
        },
        "status": {
            "heading": _js(_("%(me)s vs %(opponent)s")),
            "round": _js(pgettext("round of the game", "Round %(round)s of %(rounds)s")),
            "separator": pgettext("between parts of a status line", " · "),
            "rated": pgettext("game", "rated"),
            "casual": pgettext("game", "casual"),
            "your_turn": _("Your turn:"),
            "phases": {
                "turn": _("roll, or call Shanghai"),
                # Shanghai needs two of one's own dice placed in this round.
                "roll_only": _("roll (Shanghai once two of your dice are placed this round)"),
                "direction": _("choose the end that is number 1 (click a grey captain)"),
                "placement": _("place a die, or first play a dirty trick"),
                # Fewer than two dice in the supply: a roll is not allowed, Shanghai is a must.
                "no_dice": _("you have no dice left to roll, so you must call Shanghai"),
                "one_die": _(
                    "you have only one die left and a roll takes two, so you must call Shanghai"
                ),
            },
            "their_turn": _js(_("%(name)s's turn")),
            "watching": _js(_("%(name)s to move (you are watching)")),
            "to_move": _js(_("%(name)s to move")),
            "last_action": _js(_("%(name)s %(action)s")),
            "stop": pgettext("end of a sentence", "."),
            "ratings": _js(_("Ratings: %(me)s · %(opponent)s")),
            "rating_change": _js(_("%(name)s %(before)s → %(after)s (%(change)s)")),
            "you": pgettext("in the ratings line", "you"),
            "casual_result": _("A casual game: ratings did not change."),
            "variant": pgettext("a short tag naming the game's variant", "extra wild card"),
            "variant_title": _js(
                _(
                    "This game uses the variant “extra wild card”: each player started with one "
                    "more trick card (%(wild)s / %(action)s), usable from round 1 like any trick "
                    "card; unused, it scores 1 point."
                )
            ),
        },
        "clock": {
            "left": _js(_("Time left to move: %(left)s")),
            "extended": _("(one extra day given)"),
            "passed": _("the deadline has passed"),
            "until": _js(_("%(left)s (until %(when)s)")),
            "days_hours": _js(pgettext("time left", "%(days)s %(hours)s")),
            "days": _count(lambda n: ngettext("%(n)s day", "%(n)s days", n)),
            "hours": _count(lambda n: ngettext("%(n)s hour", "%(n)s hours", n)),
            "minutes": _count(lambda n: ngettext("%(n)s minute", "%(n)s minutes", n)),
            "bank": _("Time bank"),
            "bank_of": _js(pgettext("a player's time bank", "%(name)s: %(left)s")),
            "away_me": _js(_("You are away %(start)s – %(end)s: deadlines pause.")),
            "away": _js(_("%(name)s is away %(start)s – %(end)s: deadlines pause.")),
        },
        "connection": {"connecting": _("Connecting…"), "reconnecting": _("Reconnecting…")},
        "round_end": {
            "label": _js(_("Round %(round)s result")),
            "heading": _js(_("Round %(round)s: %(name)s called Shanghai!")),
            "beside": _js(pgettext("neighbouring dice", "beside: %(me)s – %(opponent)s")),
            "dice": _count(lambda n: ngettext("%(name)s: %(n)s die", "%(name)s: %(n)s dice", n)),
            "to": _js(_("goes to %(name)s")),
            "removed_label": _("removed from the game"),
            "removed": pgettext("a card", "removed"),
            "stays": _("This stays until the next roll."),
        },
        "tavern": {
            "label": _("The tavern"),
            "position": _js(_("position %(number)s")),
            "no_number": _("no number yet"),
            "one_here": pgettext("on the captain", "1 here"),
            "captain_out": _js(_("%(name)s's captain: a trick was used this round")),
            "captain_out_me": _("Your captain: you used a trick this round"),
            "captain_note": pgettext("beside a player's captain", "trick used this round"),
            "supply": _count(
                lambda n: ngettext(
                    "%(name)s: %(n)s die in supply", "%(name)s: %(n)s dice in supply", n
                )
            ),
        },
        "controls": {
            "label": _("Your move"),
            "roll": pgettext("button", "Roll"),
            "shanghai": words.describe_command({"type": "shanghai"}),
            "place": _js(_("Place the %(value)s")),
            "your_roll": _("Your roll"),
            "their_roll": _js(_("%(name)s's roll")),
            "your_tricks": _("Your dirty tricks"),
            "use_wild": _js(_("Use %(card)s as %(wild)s (a wild sailor)")),
            "use_action": _js(_("Use %(card)s: %(action)s")),
            "wild_question": _("Which crew does the wild sailor join?"),
            "adjust_question": _("Which die, up or down?"),
            "wild_choice": _js(_("%(nation)s sailor")),
            "adjust_choice": _js(_("Die %(number)s: %(before)s → %(after)s")),
            "cancel": _("Cancel"),
        },
        "tricks": {
            "of": _js(_("%(name)s's dirty tricks")),
            "unused": _count(
                lambda n: ngettext(
                    "%(n)s unused: 1 point at the end", "%(n)s unused: 1 point each at the end", n
                )
            ),
            "unused_final": _count(
                lambda n: ngettext("%(n)s unused: 1 point", "%(n)s unused: 1 point each", n)
            ),
            "count_of": _count(
                lambda n: ngettext(
                    "%(name)s: %(n)s unused dirty trick", "%(name)s: %(n)s unused dirty tricks", n
                )
            ),
            "none": _(
                "No trick cards yet: one you win in the tavern is usable from the next round."
            ),
            "extra": pgettext("the variant's extra trick card", "extra card"),
            "usable": _("usable this round"),
            "won_this_round": _("won this round: usable from the next"),
            "trick_used_me": _("not this round: you already used a trick (your captain is out)"),
            "trick_used": _js(_("not this round: %(name)s already used a trick")),
            "won_in_last_round": _("won in the final round: never usable"),
            "game_over": _("not usable: the game is over"),
            "card_state": _js(
                pgettext("a trick card, then whether it can be used", "%(card)s: %(state)s")
            ),
        },
        "score": {
            "label": _("Score table"),
            "crew": _("Crew"),
            "to_come": _("Still to come"),
            "cards_points": _("cards / points"),
            "tricks": _("Dirty tricks"),
            "unused_tricks": _("Unused tricks"),
            "now": _("Score now"),
            "total_button": _count(
                lambda n: ngettext(
                    "%(n)s point now for %(name)s: show the points each crew gives",
                    "%(n)s points now for %(name)s: show the points each crew gives",
                    n,
                )
            ),
            "sailors_of": _js(_("%(name)s's sailors")),
            "crew_button": _js(_("%(name)s, %(nation)s: %(value)s: show the cards")),
            "to_come_title": _("Cards still to come (tavern and deck)"),
            "points_title": _("Points each crew gives right now"),
            "no_sailors": _("No sailors yet."),
            "no_cards": _("No cards left."),
            "close": _("Close"),
        },
        "result": {
            "title": _("Final score"),
            "outcome": _("Outcome"),
            "strength": pgettext("of a crew, in the final score", "Strength"),
            "points": _("Points"),
            "total": _("Total"),
            "nothing": pgettext("no crew on either side", "—"),
            "keeps": _js(_("%(name)s keeps %(strength)s")),
            "equal": _("equal: all discarded"),
            "weaker": _js(_("%(name)s takes the weaker crew: %(strength)s")),
            "point_each": _("1 point each"),
        },
        "recent": _("Recent moves"),
        "since": {
            "title": _("Since your last move"),
            "new_die": _js(_("%(label)s, new since your last move")),
            "new_round_end": _("new since your last move"),
        },
        "announce": {
            "your_turn": _("Your turn."),
            "their_turn": _js(_("%(name)s's turn.")),
        },
        "extras": {
            "extend": _js(_("Give %(name)s one more day")),
            "resign": resign,
            "steps_so_far": _("Step through the moves so far"),
            "replay": _("Replay the game"),
            "report": _("Report this game"),
            "analysis": _("The analysis of the game"),
            "offer_rematch": _("Offer a rematch"),
            "go_to_rematch": _("Go to the rematch"),
            "rematch_offered": _js(_("Rematch offered: waiting for %(name)s.")),
            "accept_rematch": _("Accept the rematch"),
            "commitment": _("Server's commitment:"),
            "copy": _("Copy"),
            "copied": _("Copied"),
            "copy_commitment": _("Copy the whole commitment"),
            "block": _js(_("Block %(name)s")),
            "unblock": _js(_("Unblock %(name)s")),
            "block_question": _js(
                _(
                    "Block %(name)s? They can no longer invite you or write to you; "
                    "this game goes on."
                )
            ),
            "blocked": _js(_("You blocked %(name)s.")),
            "unblocked": _js(_("You unblocked %(name)s.")),
        },
        "chat": {
            "title": _("Chat"),
            "report": pgettext("a chat message", "Report"),
            "to": _js(_("Message to %(name)s")),
            "placeholder": _js(_("Say something to %(name)s")),
            "send": _("Send"),
            "empty": _("No messages yet."),
        },
        "alerts": {
            "offline_move": _("Not connected: reconnecting; please try again in a moment."),
            "offline_chat": _(
                "Not connected: reconnecting; your message is kept: send it again in a moment."
            ),
            "failed": _("That did not work."),
        },
        "report": {
            "title_message": _("Report this message"),
            "title_game": _("Report this game"),
            "question": _("What should the moderators look at?"),
            "reasons": {
                "abuse": _("Abuse or insults"),
                "spam": pgettext("a report's reason", "Spam"),
                "cheating": _("Cheating or stalling"),
                "other": pgettext("a report's reason", "Something else"),
            },
            "details": _("More details (optional)"),
            "choose": _("Choose what the moderators should look at."),
            "cancel": _("Cancel"),
            "send": _("Send the report"),
            "thanks": _("Thank you: the moderators will look at it."),
        },
        "prompts": {
            "resign": _("Resign this game? Your opponent wins."),
        },
        "replay": {
            "label": _("Step through the game"),
            "first": _("« First"),
            "first_label": _("First step"),
            "back": _("◀ Back"),
            "back_label": _("One step back"),
            "play": _("▶ Play"),
            "play_label": _("Play"),
            "pause": _("❚❚ Pause"),
            "pause_label": _("Pause"),
            "forward": _("Forward ▶"),
            "forward_label": _("One step forward"),
            "last": _("Last »"),
            "last_label": _("Last step"),
            "step": pgettext("replay slider", "Step"),
            "step_of": _js(_("Step %(step)s of %(steps)s")),
            "rounds": _("Rounds"),
            "jump": _js(_("Jump to round %(round)s")),
            "loading": _("Loading the game…"),
            "failed": _js(_("The replay could not be loaded: %(error)s")),
            "error": _js(_("error %(status)s")),
        },
        "title": {"waiting": _js(_("(%(count)s) Your turn · "))},
        "next": {
            # the header's button (templates/games/_next_game.html) and the board's offer
            "label": _count(
                lambda n: ngettext(
                    "Next game (%(n)s game waiting)", "Next game (%(n)s games waiting)", n
                )
            ),
        },
        "note": {
            "saved": _("Note saved."),
            "deleted": _("Note deleted."),
            "saving": _("Saving…"),
        },
    }
