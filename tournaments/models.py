"""Tournaments: who signed up, the matches each stage pairs, their games, and the
standings kept as each game ends.

Points are kept in halves, as whole numbers: a game won counts 2 half-points, drawn 1,
lost 0 (``points_a``/``points_b``, ``game_points``); a match won 2 match points, drawn
1 (``match_points``); Sonneborn–Berger in quarter points (``sonneborn_berger``: the
match points of each opponent beaten, and half of each opponent drawn against). Only
``tournaments.services`` writes any of them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.models import DAYS_PER_MOVE_CHOICES


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", _("Round robin")
        GROUPS_KNOCKOUT = "groups_knockout", _("Groups, then knock-out")
        KNOCKOUT = "knockout", _("Knock-out")

    class Status(models.TextChoices):
        SIGNUP = "signup", _("Open for sign-up")
        RUNNING = "running", _("Running")
        FINISHED = "finished", pgettext_lazy("tournament", "Finished")
        CANCELLED = "cancelled", pgettext_lazy("tournament", "Cancelled")

    name = models.CharField(max_length=80)
    description = models.CharField(max_length=500, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    featured = models.BooleanField(default=False, help_text=_("created by staff, listed first"))
    format = models.CharField(max_length=20, choices=Format.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SIGNUP)
    # the games' terms, as an invitation's (games.clock.Bank for the bank)
    extra_wild = models.BooleanField(_("extra wild card variant"), default=False)
    rated = models.BooleanField(default=True)
    days_per_move = models.PositiveSmallIntegerField(choices=DAYS_PER_MOVE_CHOICES, default=3)
    bank_start_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    bank_increment_hours = models.PositiveSmallIntegerField(default=0)
    bank_cap_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    # who may sign up: a rating range, as the site shows ratings (empty: no limit)
    min_rating = models.PositiveSmallIntegerField(null=True, blank=True)
    max_rating = models.PositiveSmallIntegerField(null=True, blank=True)
    min_players = models.PositiveSmallIntegerField(default=4)
    max_players = models.PositiveSmallIntegerField(default=16)
    # groups (round robin: one group of everyone; groups then knock-out: groups of at
    # most this many, drawn by rating snake) and how many of each group go on
    group_size = models.PositiveSmallIntegerField(default=4)
    advance = models.PositiveSmallIntegerField(default=2)
    signup_deadline = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # the stage being played: 0 before the start; then 1, 2, … (groups, then each
    # knock-out round)
    stage = models.PositiveSmallIntegerField(default=0)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # bumped at every change the page shows: an open page reloads its parts when it grows
    version = models.PositiveIntegerField(default=0)
    # when the worker must next look (the sign-up deadline; a stage whose last match was
    # decided; a match that needs its next game): the due ones are read on an index
    check_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-featured", "signup_deadline", "id"]
        indexes = [
            models.Index(
                fields=["check_at"],
                name="tournament_check_idx",
                condition=models.Q(status__in=["signup", "running"], check_at__isnull=False),
            ),
            # the list of open and running tournaments: featured first, then by deadline
            models.Index(
                fields=["status", "-featured", "signup_deadline", "id"],
                name="tournament_list_idx",
                condition=models.Q(status__in=["signup", "running"]),
            ),
        ]

    def __str__(self):
        return self.name


class Entry(models.Model):
    """A player in a tournament, with their standing in their group, kept as games end."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("Playing")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        OUT = "out", _("Knocked out")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    joined_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    # drawn at the start: the rating then, the seed (1: the highest), the group (0, 1, …)
    rating = models.PositiveSmallIntegerField(null=True, blank=True)
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    group = models.PositiveSmallIntegerField(null=True, blank=True)
    # the group's standings (halves and quarters: see the module)
    match_points = models.PositiveSmallIntegerField(default=0)
    game_points = models.PositiveSmallIntegerField(default=0)
    sonneborn_berger = models.PositiveIntegerField(default=0)
    matches_played = models.PositiveSmallIntegerField(default=0)
    # the place in the group once it is over; the final place once the tournament is
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    final_place = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "group", "place", "seed", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="one_entry_per_player"),
        ]
        indexes = [models.Index(fields=["user", "tournament"], name="entry_user_idx")]

    def __str__(self):
        return f"{self.user} in {self.tournament}"


class Match(models.Model):
    """Two entries' pairing in a stage: two games with the starting player swapped, and a
    third if a knock-out match is level (then the written tie-break)."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for its players")
        PLAYING = "playing", _("Playing")
        DECIDED = "decided", _("Decided")

    class Decided(models.TextChoices):
        GAMES = "games", _("by its games")
        TIEBREAK = "tiebreak", _("by the tie-break")
        FORFEIT = "forfeit", _("by forfeit")
        BYE = "bye", _("a bye")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="matches")
    stage = models.PositiveSmallIntegerField()
    group = models.PositiveSmallIntegerField(null=True, blank=True)  # None: a knock-out match
    slot = models.PositiveSmallIntegerField(default=0)  # its place in the stage (the bracket)
    entry_a = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    entry_b = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    points_a = models.PositiveSmallIntegerField(default=0)
    points_b = models.PositiveSmallIntegerField(default=0)
    games_played = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    winner = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )  # None when decided: a drawn match (round robin only)
    decided_by = models.CharField(max_length=10, choices=Decided.choices, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "stage", "group", "slot"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "stage", "slot"], name="one_match_per_slot"
            ),
        ]
        indexes = [
            # a stage's undecided matches: is the stage over?
            models.Index(
                fields=["tournament", "stage"],
                name="match_open_idx",
                condition=~models.Q(status="decided"),
            ),
        ]

    def __str__(self):
        return f"{self.tournament} stage {self.stage} match {self.slot}"


class MatchGame(models.Model):
    """One game of a match: its number, who began, and its result from ``entry_a``'s side."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    game = models.OneToOneField(
        "games.Game", on_delete=models.PROTECT, related_name="tournament_game"
    )
    number = models.PositiveSmallIntegerField()  # 1, 2; 3 for a level knock-out match
    starter = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    points_a = models.PositiveSmallIntegerField(null=True, blank=True)  # None while it runs
    points_b = models.PositiveSmallIntegerField(null=True, blank=True)
    # the game's final scores from each side (the tie-break of a level knock-out match)
    score_a = models.SmallIntegerField(null=True, blank=True)
    score_b = models.SmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="one_game_per_number"),
        ]

    def __str__(self):
        return f"{self.match} game {self.number}"
