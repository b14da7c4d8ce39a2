FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_STATIC_MANIFEST=1
WORKDIR /app

COPY pyproject.toml README.md ./
COPY shanghaien ./shanghaien
COPY games ./games
COPY accounts ./accounts
RUN pip install --no-cache-dir .

COPY manage.py ./
COPY templates ./templates
COPY static ./static
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home app
USER app
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "shanghaien.asgi:application"]
