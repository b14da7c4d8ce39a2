from django.urls import path

from . import views

urlpatterns = [
    path("moderation/", views.console, name="moderation_console"),
    path("moderation/reports/<int:pk>/", views.handle_report, name="moderation_handle_report"),
]
