# The application image: Daphne serving HTTP and websockets; also runs the worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_STATIC_MANIFEST=1 \
    DJANGO_LOG_FORMAT=json
WORKDIR /app

# The dependencies alone first, exactly as locked (every package pinned, every file checked
# against its hash): this layer is rebuilt only when the lock file changes, not on every
# change to the code. The project itself is not installed: it runs from /app.
# build.txt first: its setuptools, hashed too, builds the one library that has no wheel
# (without build isolation, so pip fetches no unchecked build tools of its own).
COPY requirements/build.txt requirements/runtime.txt requirements/
RUN pip install --no-cache-dir --require-hashes --no-deps --no-build-isolation \
        -r requirements/build.txt \
    && pip install --no-cache-dir --require-hashes --no-deps --no-build-isolation \
        -r requirements/runtime.txt

# Then the whole project: everything in the build context that .dockerignore lets through
# (every app, manage.py, templates, static files), so no directory can be left out here.
COPY . .

# Everything runs as this user, who owns what it writes: the hashed static files, collected
# here once for this release, and /srv/static, the mount point of the volume that Caddy
# serves (a new volume takes its owner from it), where the migrate service copies them.
RUN useradd --create-home app \
    && install -d -o app -g app /app/staticfiles /srv/static
USER app
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

EXPOSE 8000
# The probe asks as Caddy does (docs/operations.md, "Health"): with a name the site allows
# (the first of DJANGO_ALLOWED_HOSTS) and X-Forwarded-Proto: https, so that the production
# host check and HTTPS redirect let it through like any request from the proxy.
HEALTHCHECK --interval=15s --timeout=5s --retries=3 \
  CMD python -c "import os, urllib.request as r; host = os.environ.get('DJANGO_ALLOWED_HOSTS', 'localhost').split(',')[0].strip().lstrip('*.') or 'localhost'; r.urlopen(r.Request('http://127.0.0.1:8000/healthz?skip=worker', headers={'Host': host, 'X-Forwarded-Proto': 'https'}), timeout=4)"
# A restart reconnects every open board at once: the listen backlog holds the burst of
# connections (up to the kernel's net.core.somaxconn) and each handshake may wait its turn
# for up to 60 s instead of Daphne's 5 (docs/operations.md, "Scaling").
CMD ["daphne", "--verbosity", "0", "-e", "tcp:port=8000:interface=0.0.0.0:backlog=4096", "--websocket_connect_timeout", "60", "--proxy-headers", "shanghaien.asgi:application"]
