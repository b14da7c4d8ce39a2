# The application image: Daphne serving HTTP and websockets; also runs the worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_STATIC_MANIFEST=1 \
    DJANGO_LOG_FORMAT=json
WORKDIR /app

COPY pyproject.toml README.md ./
COPY shanghaien ./shanghaien
COPY games ./games
COPY accounts ./accounts
COPY moderation ./moderation
RUN pip install --no-cache-dir .

COPY manage.py ./
COPY templates ./templates
COPY static ./static
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home app
USER app
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", "shanghaien.asgi:application"]
