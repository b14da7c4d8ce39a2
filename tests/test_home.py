import pytest


@pytest.mark.django_db
def test_home_page_explains_the_game_and_offers_log_in(client):
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<h1>Shanghaien</h1>" in body
    assert "Shanghai!" in body
    assert 'href="/accounts/login/"' in body


@pytest.mark.django_db
def test_login_page_renders(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert b'name="login"' in response.content


def test_static_css_is_served_by_whitenoise(client, settings):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert b"--me:" in b"".join(response.streaming_content)
