# The application image: Daphne serving HTTP and websockets; also runs the worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_STATIC_MANIFEST=1 \
    DJANGO_LOG_FORMAT=json
WORKDIR /app

# The dependencies alone first, read from pyproject.toml: this layer is rebuilt only when
# pyproject.toml changes, not on every change to the code.
COPY pyproject.toml ./
RUN python -c 'import tomllib; \
        project = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
        print("\n".join(project["dependencies"]))' > /tmp/requirements.txt \
    && pip install --no-cache-dir -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# Then the whole project: everything in the build context that .dockerignore lets through
# (every app, manage.py, templates, static files), so no directory can be left out here.
COPY . .
RUN pip install --no-cache-dir --no-deps . \
    && rm -rf build ./*.egg-info
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home app
USER app
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz?skip=worker', timeout=4)"
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", "shanghaien.asgi:application"]
