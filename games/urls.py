from django.urls import include, path

import shanghaien.lib.urls  # noqa: F401  (the <username:…> converter)

from . import guide, people, profiles, settings_page, views

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("games.notify.urls")),
    path("rules/", guide.rules, name="rules"),
    path("users/<username:username>/", profiles.profile, name="profile"),
    path("settings/", settings_page.settings_page, name="settings"),
    path("players/", people.players, name="players"),
    path("friends/", people.friends, name="friends"),
    path("games/", views.my_games, name="my_games"),
    path("games/finished/", views.my_games, name="finished"),
    path("live/", views.live, name="live"),
    path("games/<int:pk>/", views.game, name="game"),
    path("games/<int:pk>/play/", views.play, name="play"),
    path("games/<int:pk>/note/", views.save_note, name="game_note"),
    path("next/", views.next_game, name="next_game"),
    path("games/<int:pk>/replay/", views.replay, name="replay"),
    path("games/<int:pk>/replay/analysis/", views.replay_analysis, name="replay_analysis"),
    path("invitations/new/", views.invite, name="invite"),
    path("play/computer/", views.play_computer, name="play_computer"),
    path("play/now/", views.play_now, name="play_now"),
    path(
        "invitations/<int:pk>/<str:answer>/",
        views.answer_invitation,
        name="answer_invitation",
    ),
]
