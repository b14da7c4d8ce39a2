"""Glicko-2 ratings of rated games: the current rating of each player and every change.

Only ``ratings.services.apply_result`` writes them, inside the transaction that ends a
rated game. The games app stands above this one (it calls ``apply_result`` and shows the
ratings), so a change knows its game by the row's id alone, never by a model reference
(docs/architecture.md, "Apps and what they may import").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from . import glicko2

# Above this deviation a rating is provisional: too few (or too old) games to trust it.
PROVISIONAL_DEVIATION = 110


class PlayerRating(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating"
    )
    rating = models.FloatField(default=glicko2.DEFAULT_RATING)
    deviation = models.FloatField(default=glicko2.DEFAULT_DEVIATION)
    volatility = models.FloatField(default=glicko2.DEFAULT_VOLATILITY)
    games = models.PositiveIntegerField(default=0, help_text=_("rated games played"))
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)
    # The rating history the profile's chart draws, downsampled to a few hundred points
    # at most (``chart.extend_series``): the page never reads every change.
    series = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-rating", "user_id"]
        indexes = [models.Index(fields=["-rating"], name="rating_order")]

    def __str__(self):
        return f"{self.user}: {self.rating:.0f} ± {2 * self.deviation:.0f}"

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION

    def as_glicko(self) -> glicko2.Rating:
        return glicko2.Rating(self.rating, self.deviation, self.volatility)


class RatingChange(models.Model):
    """What one rated game did to one player's rating."""

    # The game's id (a ``games.Game`` row), no foreign key: this app comes before games.
    # Its one writer takes it from the game row it holds locked as the game ends, and a
    # game with events (every rated one) is never deleted, so it always names a game.
    game_id = models.BigIntegerField(db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text=_("who they played"),
    )
    score = models.FloatField(help_text=_("1 win, 0.5 draw, 0 loss"))
    rating_before = models.FloatField()
    deviation_before = models.FloatField()
    volatility_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    volatility_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["user", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game_id", "user"], name="one_rating_change_per_game")
        ]
        indexes = [models.Index(fields=["user", "created_at"])]

    def __str__(self):
        before, after = round(self.rating_before), round(self.rating_after)
        return f"{self.user} in game {self.game_id}: {before} → {after}"
