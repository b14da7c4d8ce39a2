import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from .helpers.databases import uses_postgres


@pytest.mark.django_db
def test_the_configured_database_stores_users():
    get_user_model().objects.create_user("anna", password="s3cret-pass")
    assert get_user_model().objects.get(username="anna").check_password("s3cret-pass")
    assert connection.vendor == ("postgresql" if uses_postgres() else "sqlite")


@pytest.mark.django_db(transaction=True)
def test_writers_in_several_threads_wait_for_each_other_instead_of_failing():
    # Sockets run their database work in a thread pool: transactions that read, then
    # write, overlap. Each must wait for the other, never fail with "database is locked".
    import time
    from concurrent.futures import ThreadPoolExecutor

    from django.db import close_old_connections, connections, transaction

    users = get_user_model()
    # the computer opponents' accounts, made by a migration, are there unless an earlier
    # transactional test flushed them
    before = users.objects.count()

    def read_then_write(n):
        try:
            for i in range(15):
                with transaction.atomic():
                    users.objects.count()
                    time.sleep(0.002)  # let the other threads read too
                    users.objects.create(username=f"u{n}-{i}")
        finally:
            close_old_connections()
            connections.close_all()

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(read_then_write, range(4)))
    assert users.objects.count() == before + 60
