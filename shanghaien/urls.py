from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from accounts.views import too_many_requests

from . import api_site, pwa
from .fairness_page import fairness_page
from .health import healthz
from .lib.outage import server_error

# The admin's log in is allauth's: throttled, and with the second factor (staff need one,
# accounts.middleware). allauth answers a throttled attempt with this handler.
admin.site.login = secure_admin_login(admin.site.login)
handler429 = too_many_requests
# the database away answers 503, anything else the 500 page (shanghaien.lib.outage)
handler500 = server_error


def favicon(request):
    # at request time: the hashed name exists only once collectstatic has run
    return HttpResponsePermanentRedirect(static("img/icon.svg"))


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # browsers ask for this path whatever the page says: the site's icon
    path("favicon.ico", favicon),
    # the installable app: at the root, so that the worker's scope is the whole site
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    path("offline/", pwa.offline, name="offline"),
    # how the deck and the dice are made fair, with the checker to download: for everyone
    path("fairness/", fairness_page, name="fairness"),
    path("admin/", admin.site.urls),
    # the JSON API (shanghaien.api_site): its operations, schema and docs page
    path("api/", include(api_site.urlpatterns)),
    path("", include("accounts.urls")),
    path("", include("ratings.urls")),
    path("", include("games.urls")),
    path("", include("tournaments.urls")),
    # the moderators' console (moderation.views)
    path("", include("moderation.urls")),
    # Anything else under api/, line breaks included (<path:…> stops at one): a JSON 404.
    api_site.fallback,
]
