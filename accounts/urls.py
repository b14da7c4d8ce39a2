from django.urls import path

import shanghaien.lib.urls  # noqa: F401  (the <username:…> converter)

from . import api, views

urlpatterns = [
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/preferences/", views.preferences, name="preferences"),
    path("accounts/tokens/", views.create_token, name="create_token"),
    path("accounts/tokens/<int:pk>/revoke/", views.revoke_token, name="revoke_token"),
    path("accounts/holidays/", views.declare_holiday, name="declare_holiday"),
    path("accounts/holidays/<int:pk>/cancel/", views.cancel_holiday, name="cancel_holiday"),
    path("api/holidays/", api.holidays, name="api_holidays"),
    path("api/holidays/<int:pk>/cancel/", api.holiday_cancel),
    path("api/blocks/", api.blocks, name="api_blocks"),
    path("api/blocks/<username:username>/remove/", api.unblock),
]
