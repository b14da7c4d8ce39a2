"""The slice's pages, at the addresses they always had (under accounts/)."""

from django.urls import path

from . import views

urlpatterns = [
    path("accounts/preferences/", views.preferences_page, name="preferences"),
    # the one-click link of every email of ours: no login, a signed token
    path("accounts/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
