from django.contrib import admin

from shanghaien.lib.admin import ReadOnlyAdmin

from .models import PlayerRating, RatingChange


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("user", "rating", "deviation", "volatility", "games", "wins", "draws", "losses")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    ordering = ("-rating",)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("game_id", "user", "score", "rating_before", "rating_after", "created_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    list_filter = ("score",)
    raw_id_fields = ("user",)
