from django.urls import include, path

import shanghaien.lib.urls  # noqa: F401  (the <username:…> converter)

from . import api, guide, profiles, views

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("games.notify.urls")),
    path("rules/", guide.rules, name="rules"),
    path("users/<username:username>/", profiles.profile, name="profile"),
    path("games/finished/", views.finished, name="finished"),
    path("games/<int:pk>/", views.game, name="game"),
    path("games/<int:pk>/play/", views.play, name="play"),
    path("games/<int:pk>/replay/", views.replay, name="replay"),
    path("games/<int:pk>/replay/analysis/", views.replay_analysis, name="replay_analysis"),
    path("invitations/new/", views.invite, name="invite"),
    path("play/computer/", views.play_computer, name="play_computer"),
    path(
        "invitations/<int:pk>/<str:answer>/",
        views.answer_invitation,
        name="answer_invitation",
    ),
    path("api/invitations/", api.invitations, name="api_invitations"),
    path("api/commitment/", api.commitment, name="api_commitment"),
    path("api/invitations/<str:pk>/accept/", api.invitation_accept),
    path("api/invitations/<str:pk>/decline/", api.invitation_decline),
    path("api/invitations/<str:pk>/cancel/", api.invitation_cancel),
    path("api/games/", api.games, name="api_games"),
    path("api/games/<str:pk>/", api.game, name="api_game"),
    path("api/games/<str:pk>/commands/", api.game_commands, name="api_game_commands"),
    path("api/games/<str:pk>/extend/", api.game_extend, name="api_game_extend"),
    path("api/games/<str:pk>/rematch/", api.game_rematch, name="api_game_rematch"),
    path("api/games/<str:pk>/chat/", api.game_chat, name="api_game_chat"),
    path("api/games/<str:pk>/replay/", api.game_replay, name="api_game_replay"),
    path("api/games/<str:pk>/export/", api.game_export, name="api_game_export"),
]
