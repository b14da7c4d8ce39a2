from django.urls import include, path

import shanghaien.lib.urls  # noqa: F401  (the <username:…> converter)

from . import views

urlpatterns = [
    # django-allauth's pages (log in, sign up, log out, password, email, two factors);
    # the log in is ours to answer a throttled attempt with 429, the set-up of an
    # authenticator app ours to count as using it.
    path("accounts/login/", views.LoginView.as_view(), name="account_login"),
    # ours so that a guest can sign up too, keeping their games (accounts.guest_accounts)
    path("accounts/signup/", views.SignupView.as_view(), name="account_signup"),
    path(
        "accounts/2fa/totp/activate/",
        views.ActivateTOTPView.as_view(),
        name="mfa_activate_totp",
    ),
    path(
        "accounts/2fa/recovery-codes/",
        views.RecoveryCodesView.as_view(),
        name="mfa_view_recovery_codes",
    ),
    path("accounts/", include("allauth.urls")),
    path("accounts/confirm/resend/", views.resend_confirmation, name="resend_confirmation"),
    # the addresses of Django's own account pages, which bookmarks and emails still hold
    path("accounts/password_change/", views.moved("account_change_password")),
    path("accounts/password_change/done/", views.moved("account_change_password")),
    path("accounts/password_reset/", views.moved("account_reset_password")),
    path("accounts/password_reset/done/", views.moved("account_reset_password_done")),
    path("accounts/reset/done/", views.moved("account_login")),
    path("accounts/reset/<str:uidb64>/<str:token>/", views.old_reset_link),
    path("language/", views.set_language, name="set_language"),
    path("accounts/tokens/", views.create_token, name="create_token"),
    path("accounts/tokens/<int:pk>/revoke/", views.revoke_token, name="revoke_token"),
    path("accounts/holidays/", views.declare_holiday, name="declare_holiday"),
    path("accounts/holidays/<int:pk>/cancel/", views.cancel_holiday, name="cancel_holiday"),
    path("notices/<int:pk>/dismiss/", views.dismiss_notice, name="dismiss_notice"),
    path("accounts/devices/<int:pk>/remove/", views.remove_device, name="remove_device"),
    path("accounts/presence/", views.show_presence, name="show_presence"),
    path("users/<username:username>/block/", views.block, name="block"),
    path("users/<username:username>/unblock/", views.unblock, name="unblock"),
    path("users/<username:username>/follow/", views.follow, name="follow"),
    path("users/<username:username>/unfollow/", views.unfollow, name="unfollow"),
]
