"""The JSON API: one django-ninja ``NinjaAPI`` over the apps' routers, its schema and
its docs page.

- Paths: ``/api/…``, each app's operations in its ``api.py`` (a ``Router``); the bodies
  and answers in each app's ``messages.py``. ``/api/openapi.json`` is the OpenAPI 3.1
  schema, ``/api/docs`` renders it with the Swagger UI files django-ninja ships (served
  by the site itself, within its Content-Security-Policy).
- Who asks: ``accounts.api.AUTH`` (a Bearer token, else the session with its CSRF check).
- Every refusal is ``{"error": {"code", "message"}}`` with its status
  (``shanghaien.lib.responses.error_response``): a service's typed error as it is; a body
  the declarations refuse as ``shanghaien.lib.schemas.refusal`` says; a body that is not
  JSON ``malformed_json``; an unknown path 404 ``not_found``, a method the path does not
  take 405 ``method_not_allowed``; a database away 503; anything else 500
  ``server_error`` (logged).
"""

from __future__ import annotations

import functools
import logging

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import render
from django.urls import path, re_path
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError

import accounts.api
import games.api
import moderation.api
import shanghaien.lib.urls  # noqa: F401  (the <username:…> converter)
import tournaments.api
from shanghaien.lib.errors import NotFound, ServiceError, TooLarge
from shanghaien.lib.input import MAX_BODY, JsonBodyParser
from shanghaien.lib.outage import is_database_unavailable, outage_response
from shanghaien.lib.responses import error_response
from shanghaien.lib.schemas import refusal

log = logging.getLogger(__name__)
METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _openapi_mappings(node) -> None:
    """pydantic writes the mapping of a union nested in a union (a trick command inside a
    command) as a schema; OpenAPI's mapping names schemas only: such a discriminator is
    left out (the ``oneOf`` it stood beside still tells the cases apart: each has its
    own constant ``type`` and no other fields)."""
    if isinstance(node, dict):
        mapping = node.get("discriminator", {}).get("mapping")
        if mapping and not all(isinstance(target, str) for target in mapping.values()):
            del node["discriminator"]
        for value in node.values():
            _openapi_mappings(value)
    elif isinstance(node, list):
        for value in node:
            _openapi_mappings(value)


class Api(NinjaAPI):
    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        _openapi_mappings(schema)
        return schema


api = Api(
    title="Shanghaien",
    version="1",
    description=(
        "The JSON API of the Shanghaien game server (docs/api.md). Every refusal is "
        '`{"error": {"code", "message"}}` with its HTTP status.'
    ),
    auth=accounts.api.AUTH,
    parser=JsonBodyParser(),
    openapi_url=None,  # served below, outside ninja's namespace
    docs_url=None,
    urls_namespace="api",
)
api.add_router("/", accounts.api.router)
api.add_router("/", games.api.router)
api.add_router("/", moderation.api.router)
api.add_router("/", tournaments.api.router)


@api.exception_handler(ServiceError)
def _service_error(request, error: ServiceError):
    return error_response(error)


@api.exception_handler(NinjaValidationError)
def _declared_refusal(request, error: NinjaValidationError):
    errors = [{**e, "loc": tuple(e["loc"][1:]) or tuple(e["loc"])} for e in error.errors]
    return error_response(refusal(errors))


@api.exception_handler(AuthenticationError)
def _not_authenticated(request, error):
    return error_response(accounts.api.not_authenticated())


@api.exception_handler(HttpError)
def _http_error(request, error: HttpError):
    cause = error.__cause__  # the body reader's own refusal (ninja wraps it)
    if isinstance(cause, ServiceError):
        return error_response(cause)
    if isinstance(cause, RequestDataTooBig):
        return error_response(TooLarge(MAX_BODY))
    problem = ServiceError("bad_request", _("The request is not valid."))
    problem.status = error.status_code
    return error_response(problem)


@api.exception_handler(Http404)
def _not_found(request, error):
    return error_response(NotFound("not_found", _("Not found.")))


@api.exception_handler(Exception)
def _unexpected(request, error: Exception):
    if isinstance(error, RequestDataTooBig):
        return error_response(TooLarge(MAX_BODY))
    if is_database_unavailable(error):
        return outage_response(request)
    log.exception("API error on %s %s", request.method, request.path)
    problem = ServiceError("server_error", _("Something went wrong."))
    problem.status = 500
    return error_response(problem)


def _json_405(view):
    """ninja answers a method the path does not take with a bare 405: the envelope
    instead, naming the methods it takes."""

    @functools.wraps(view)
    def answer(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if isinstance(response, HttpResponseNotAllowed):
            allowed = [m.strip() for m in response["Allow"].split(",")]
            allowed.sort(key=lambda m: METHOD_ORDER.index(m) if m in METHOD_ORDER else 99)
            message = _("Use %(methods)s.") % {"methods": " or ".join(allowed)}
            error = ServiceError("method_not_allowed", message)
            error.status = 405
            refused = error_response(error)
            refused["Allow"] = response["Allow"]
            return refused
        return response

    return csrf_exempt(answer)


def openapi_json(request):
    """The API's OpenAPI 3.1 schema."""
    return JsonResponse(api.get_openapi_schema(path_prefix="/api/"))


def docs(request):
    """The schema, rendered by Swagger UI from the site's own static files."""
    return render(request, "api/docs.html")


ANY_METHOD = ("GET", "POST", "PUT", "PATCH", "DELETE")


@csrf_exempt
def not_found(request, rest):
    """Any other path under ``/api/`` (after authentication, as every operation)."""
    if request.method not in ANY_METHOD:
        message = _("Use %(methods)s.") % {"methods": " or ".join(ANY_METHOD)}
        error = ServiceError("method_not_allowed", message)
        error.status = 405
        return error_response(error)
    response = None
    for check in accounts.api.AUTH:
        try:
            if check(request):
                break
        except ServiceError as error:
            response = error_response(error)
            break
    else:
        response = error_response(accounts.api.not_authenticated())
    if response is not None:
        return response
    return error_response(NotFound("not_found", _("No such API endpoint.")))


def _operations():
    patterns, _app, _namespace = api.urls
    for pattern in patterns:
        if pattern.name == "api-root":  # ninja's own root: /api/ is not an endpoint
            continue
        yield path(str(pattern.pattern), _json_405(pattern.callback), name=pattern.name)


urlpatterns = [
    path("openapi.json", openapi_json, name="api_openapi"),
    path("docs", docs, name="api_docs"),
    *_operations(),
]
# Anything else under api/, line breaks included (<path:…> stops at one): a JSON 404.
fallback = re_path(r"^api/(?P<rest>[\s\S]*)$", not_found)
