// The service worker of Shanghaien, served as /sw.js by shanghaien/pwa.py, which writes
// CONFIG: the files to keep, the version naming their cache, the icons, the words of a
// notification whose message cannot be read.
//
// Pages come from the network first. The lobby of a logged-in player (the page says so in
// its X-Offline-Copy header) is copied as it arrives; without a connection "/" shows that
// copy, marked with the time it was saved (<body data-offline-copy>, read by pwa.js), and
// any other page the offline page. The shell's files come from the cache first.
// Everything else (the API, the sockets, forms sent) goes to the network untouched.
"use strict";

const CONFIG = {{ config }};
const SHELL_PREFIX = "shell-";
const SHELL_CACHE = SHELL_PREFIX + CONFIG.version;
// Also named in static/js/pwa.js, which empties it for a visitor who is not logged in.
const PAGES_CACHE = "pages";
const SHELL_PATHS = new Set(CONFIG.precache);
// Headers of the network's answer that do not describe the copy made of its text.
const NOT_COPIED = ["content-encoding", "content-length", "vary"];

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      // past the browser's HTTP cache: an older copy of a file must not be kept as new
      await cache.addAll(CONFIG.precache.map((url) => new Request(url, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      const old = names.filter((name) => name.startsWith(SHELL_PREFIX) && name !== SHELL_CACHE);
      await Promise.all(old.map((name) => caches.delete(name)));
      // No navigation preload: a page's request is the worker's own fetch, one path to
      // reason about (a worker of an earlier release may have turned it on).
      if (self.registration.navigationPreload) await self.registration.navigationPreload.disable();
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(event, url));
  } else if (SHELL_PATHS.has(url.pathname) && url.pathname !== CONFIG.offline) {
    event.respondWith(shellFile(request, url));
  }
});

async function shellFile(request, url) {
  const kept = await caches.match(url.pathname, { cacheName: SHELL_CACHE, ignoreVary: true });
  return kept || fetch(request);
}

async function page(event, url) {
  const isLobby = url.pathname === CONFIG.lobby;
  try {
    const response = await fetch(event.request);
    if (isLobby) event.waitUntil(keepLobby(response.clone()).catch(() => {}));
    return response;
  } catch (error) {
    const copy = isLobby ? await lobbyCopy() : null;
    if (copy) return copy;
    const offline = await caches.match(CONFIG.offline, { cacheName: SHELL_CACHE, ignoreVary: true });
    return offline || Response.error();
  }
}

async function keepLobby(response) {
  const cache = await caches.open(PAGES_CACHE);
  if (response.ok && response.headers.get("X-Offline-Copy") === "lobby") {
    const headers = new Headers();
    for (const [name, value] of response.headers) {
      if (!NOT_COPIED.includes(name)) headers.append(name, value);
    }
    headers.set("X-Saved-At", new Date().toISOString());
    await cache.put(CONFIG.lobby, new Response(await response.text(), { status: 200, headers }));
  } else if (response.ok) {
    // the visitor's home page: whoever was logged in here has left
    await cache.delete(CONFIG.lobby);
  }
}

async function lobbyCopy() {
  const copy = await caches.match(CONFIG.lobby, { cacheName: PAGES_CACHE, ignoreVary: true });
  if (!copy) return null;
  const saved = (copy.headers.get("X-Saved-At") || "").replace(/[^0-9TZ:.+-]/g, "");
  const text = await copy.text();
  const marked = text.replace(/<body(?=[\s>])/, `<body data-offline-copy="${saved}"`);
  return new Response(marked, { status: 200, headers: copy.headers });
}

// A link in a notification leads to a page of this site only.
function pathOnSite(value) {
  try {
    const url = new URL(value, self.location.origin);
    if (url.origin === self.location.origin) return url.pathname + url.search + url.hash;
  } catch (error) {
    // not a URL: the lobby
  }
  return CONFIG.lobby;
}

const text = (value, fallback) => (typeof value === "string" && value ? value : fallback);

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = {}; // not JSON: the words of CONFIG.fallback
  }
  if (!message || typeof message !== "object") message = {};
  const options = {
    body: text(message.body, CONFIG.fallback.body),
    // one notification a tag: a newer one about the same game replaces it, and rings
    tag: text(message.tag, "shanghaien"),
    renotify: true,
    lang: text(message.lang, ""),
    icon: CONFIG.icon,
    badge: CONFIG.badge,
    data: { url: pathOnSite(text(message.url, CONFIG.lobby)) },
  };
  event.waitUntil(self.registration.showNotification(text(message.title, CONFIG.fallback.title), options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(pathOnSite(event.notification.data?.url), self.location.origin);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const same = windows.find((client) => new URL(client.url).pathname === target.pathname);
      if (same) return same.focus();
      for (const client of windows) {
        try {
          const focused = await client.focus();
          return await focused.navigate(target.href);
        } catch (error) {
          // a window this worker does not control cannot be sent elsewhere: the next one
        }
      }
      return self.clients.openWindow(target.href);
    })(),
  );
});
