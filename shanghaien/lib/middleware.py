"""Refuse request bodies over the limit with 413, and form bodies Django cannot read with 400,
before any view reads them."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import BadRequest as UnreadableRequest
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .errors import TooLarge

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def too_large(request, limit: int) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse(TooLarge(limit).to_json(), status=413)
    text = ngettext(
        "The request is larger than %(limit)d byte.",
        "The request is larger than %(limit)d bytes.",
        limit,
    ) % {"limit": limit}
    return HttpResponse(text, status=413, content_type="text/plain; charset=utf-8")


def unreadable_form(request) -> HttpResponse:
    text = _("The form data cannot be read.")
    return HttpResponse(text, status=400, content_type="text/plain; charset=utf-8")


class BodyLimitMiddleware:
    """A body announced larger than DATA_UPLOAD_MAX_MEMORY_SIZE is answered 413 at once.

    Django itself would raise ``RequestDataTooBig`` on the first read of such a body,
    which a view that catches every exception turns into a 500; a body that grows past
    the limit without announcing its length is caught the same way.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is not None and length > limit:
            return too_large(request, limit)
        if (
            request.method == "POST"
            and request.content_type in FORM_TYPES
            and not request.path.startswith("/api/")  # JSON only: the API never parses forms
        ):
            # Parsed here, once: a form Django cannot read (too many fields, a charset other
            # than UTF-8, broken multipart) raises on every read of request.POST, and the
            # CSRF check of Django's error pages reads it again, failing the 400 or 404 page
            # itself.
            try:
                request.POST  # noqa: B018
            except RequestDataTooBig:
                return too_large(request, limit)
            except (UnreadableRequest, SuspiciousOperation, MultiPartParserError):
                return unreadable_form(request)
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, RequestDataTooBig):
            return too_large(request, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        return None
