from django.contrib import admin
from django.urls import include, path

from .health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("", include("accounts.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("ratings.urls")),
    path("", include("games.urls")),
]
