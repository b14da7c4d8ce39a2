from django.urls import path

from . import views

urlpatterns = [
    path("tournaments/", views.tournaments, name="tournaments"),
    path("tournaments/new/", views.new, name="new_tournament"),
    path("tournaments/rules/", views.rules, name="tournament_rules"),
    path("tournaments/<int:pk>/", views.tournament, name="tournament"),
    path("tournaments/<int:pk>/<str:action>/", views.act, name="tournament_action"),
]
