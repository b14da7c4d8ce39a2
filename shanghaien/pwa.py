"""The site as an installable web app: its manifest, its service worker and its offline page.

The worker (templates/pwa/sw.js, served from the root so that it covers every page) keeps
the app's shell (the offline page, the stylesheet, the lobby's scripts, the icons) and a
copy of the player's lobby, shown when the connection is gone; it also shows the
notifications the server pushes. Its cache is named after a version that changes with
anything it keeps, so a deploy installs a fresh worker and drops the old cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import urljoin

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.staticfiles import finders
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import get_template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, get_language_bidi
from django.utils.translation import gettext as _

NAME = "Shanghaien"
# The site's header and its page (static/css/site.css): the app's title bar and the
# splash screen before the first page is drawn.
THEME_COLOR = "#2b1d12"
BACKGROUND_COLOR = "#fbf7ef"

# The static files the lobby and the offline page link, kept so both open offline; the
# modules the scripts import are found in them (shell_urls).
SHELL = (
    "css/site.css",
    "js/pwa.js",
    "js/copy.js",
    "js/live.js",
    "img/icon.svg",
    "img/search.svg",  # the header's search button
    "img/icon-192.png",
    "img/badge-96.png",
)
# `import … from "./words.js"` and `import "./x.js"`: the static imports of a module.
MODULE_IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^"';]*?\bfrom\s*["'](\.\.?/[^"']+)["']"""
    r"""|^\s*import\s*["'](\.\.?/[^"']+)["']""",
    re.MULTILINE,
)
# The manifest's translations differ by language; an hour lets a new one reach the
# installed app soon enough.
MANIFEST_MAX_AGE = 60 * 60


def manifest(request):
    def icon(path: str, size: int, purpose: str) -> dict:
        return {
            "src": static(path),
            "sizes": f"{size}x{size}",
            "type": "image/png",
            "purpose": purpose,
        }

    data = {
        "id": "/",
        "name": NAME,
        "short_name": NAME,
        "description": _("Play Shanghaien, the dice game of two captains, one turn at a time."),
        "lang": get_language(),
        "dir": "rtl" if get_language_bidi() else "ltr",
        "start_url": reverse("home"),
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "categories": ["games"],
        "icons": [
            icon("img/icon-192.png", 192, "any"),
            icon("img/icon-512.png", 512, "any"),
            icon("img/icon-maskable-512.png", 512, "maskable"),
        ],
    }
    response = JsonResponse(data, content_type="application/manifest+json")
    patch_cache_control(response, max_age=MANIFEST_MAX_AGE)
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


@lru_cache(maxsize=64)
def _read(path: str, modified: int, size: int) -> bytes:
    return Path(path).read_bytes()


def served_content(url: str) -> bytes | None:
    """The static file at ``url`` as the site serves it: the collected copy (hashed names,
    collectstatic) when there is one, else the source."""
    name = url.removeprefix(settings.STATIC_URL)
    collected = Path(settings.STATIC_ROOT) / name if settings.STATIC_ROOT else None
    path = collected if collected and collected.is_file() else finders.find(name)
    if not path:
        return None
    stat = os.stat(path)
    return _read(str(path), stat.st_mtime_ns, stat.st_size)


def shell_urls() -> list[str]:
    """The shell's URLs, with the modules its scripts import, at any depth. An import is
    resolved from the URL of the file that has it, as the browser does: a hashed module
    may import a name that is not (collectstatic rewrites no import by default)."""
    urls, todo = [], [static(name) for name in SHELL]
    while todo:
        url = todo.pop(0)
        if url in urls:
            continue
        urls.append(url)
        content = served_content(url) if url.endswith(".js") else None
        for found in MODULE_IMPORT.findall((content or b"").decode()):
            todo.append(urljoin(url, found[0] or found[1]))
    return urls


def precache_urls() -> list[str]:
    """What the worker keeps when it installs: the offline page and the shell."""
    return [reverse("offline"), *shell_urls()]


def worker_version(config: dict, template_source: str) -> str:
    """Changes with the list the worker keeps, its own code and the content of the files:
    any of them installs anew (a deploy). It is the same for every visitor: a new worker
    while pages are open is a deploy's, never a login's or a language's. (Without hashed
    names a changed file keeps its URL, and only its content tells.)"""
    files = [
        hashlib.sha256(served_content(url) or b"").hexdigest()
        for url in config.get("precache", ())
        if url.startswith(settings.STATIC_URL)
    ]
    parts = [json.dumps(config, sort_keys=True), template_source, *files]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def _javascript_json(value) -> str:
    # as in json_script: nothing in the JSON can close or open markup
    text = json.dumps(value, sort_keys=True)
    return text.replace("<", "\\u003C").replace(">", "\\u003E").replace("&", "\\u0026")


def service_worker(request):
    template = get_template("pwa/sw.js")
    config = {
        "precache": precache_urls(),
        "offline": reverse("offline"),
        "lobby": reverse("home"),
        "icon": static("img/icon-192.png"),
        "badge": static("img/badge-96.png"),
        # A push whose message cannot be read shows the site's name. No words here: the
        # worker is the same for every visitor and language, so that logging in or
        # changing the language never installs a new worker under an open page.
        "fallback": {"title": NAME, "body": ""},
    }
    config["version"] = worker_version(config, template.template.source)
    body = template.render({"config": mark_safe(_javascript_json(config))})
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    # the browser checks for a new worker at every visit: never an old copy
    patch_cache_control(response, no_cache=True)
    return response


def offline(request):
    """The page the worker shows when a page cannot be loaded. The worker keeps it as it
    was fetched, with the cookies of whoever was logged in then, so nothing in it belongs
    to a player: no name, no games waiting, no flash message taken from the next page."""
    context = {"offline_page": True, "user": AnonymousUser(), "waiting_count": 0, "messages": ()}
    return render(request, "pwa/offline.html", context)
