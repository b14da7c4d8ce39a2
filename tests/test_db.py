import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from .conftest import uses_postgres


@pytest.mark.django_db
def test_the_configured_database_stores_users():
    get_user_model().objects.create_user("anna", password="s3cret-pass")
    assert get_user_model().objects.get(username="anna").check_password("s3cret-pass")
    assert connection.vendor == ("postgresql" if uses_postgres() else "sqlite")
