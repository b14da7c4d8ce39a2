"""The API's docs page in Chromium: Swagger UI from the site's own files draws every
operation of /api/openapi.json under the site's Content-Security-Policy."""

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def open_docs(page, url):
    problems = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "console",
        lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None,
    )
    page.on(
        "response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None
    )
    page.on(
        "request", lambda r: None if r.url.startswith(url) else problems.append(f"off-site {r.url}")
    )
    page.goto(url + "/api/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=15000)
    return problems


@pytest.mark.parametrize(("width", "height", "name"), [(1366, 768, "laptop"), (390, 844, "phone")])
def test_the_docs_page_draws_every_operation(asgi_server, browser, screenshot, width, height, name):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        problems = open_docs(page, asgi_server)
        schema = page.evaluate("fetch('/api/openapi.json').then((r) => r.json())")
        operations = sum(len(methods) for methods in schema["paths"].values())
        assert operations >= 20
        assert page.locator(".swagger-ui .opblock").count() == operations
        # an operation opens with its parameters and its declared answers
        page.locator(".swagger-ui .opblock-summary").first.click()
        page.wait_for_selector(".swagger-ui .opblock .responses-wrapper")
        screenshot(page, f"api-docs-{name}")
        assert not problems, problems
    finally:
        context.close()
