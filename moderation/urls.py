from django.urls import path

from . import api

urlpatterns = [
    path("api/reports/", api.reports, name="api_reports"),
]
