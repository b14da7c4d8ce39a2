"""Path converters shared by the apps' URL patterns; importing this module registers them."""

from django.urls import register_converter

from .input import UsernameConverter

register_converter(UsernameConverter, "username")
