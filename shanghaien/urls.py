from django.contrib import admin
from django.urls import include, path, re_path

from accounts.api import not_found

from .health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("", include("accounts.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("ratings.urls")),
    path("", include("games.urls")),
    path("", include("moderation.urls")),
    # Anything else under api/, line breaks included (<path:…> stops at one): a JSON 404.
    re_path(r"^api/(?P<rest>[\s\S]*)$", not_found),
]
