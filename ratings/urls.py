from django.urls import path

from . import views

urlpatterns = [
    path("ranking/", views.ranking_page, name="ranking"),
]
