// The installable app, on every page: registers the service worker (/sw.js, from the root
// so that it covers the whole site) and says when the page is offline. The banner's words
// are in the page (base.html); this only shows one of them and fills in the time.
const PAGES_CACHE = "pages"; // the worker's copy of the lobby (templates/pwa/sw.js)
// A connection that comes and goes (a train, a change of network) is back once it stays.
const SETTLE_MS = 1000;
// How often the kept lobby asks whether the site answers again.
const RETRY_MS = 10000;
const body = document.body;
const savedAt = body.dataset.offlineCopy; // set by the worker on the lobby it kept
const isOfflinePage = "offlinePage" in body.dataset;

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // no worker (a private window, a locked-down browser): the site works online as before
  });
}

// A page for a visitor who is not logged in: the lobby kept for offline use belongs to a
// player who has left, and this browser keeps no one's lobby.
if (!body.dataset.user && !isOfflinePage && "caches" in window) {
  caches.delete(PAGES_CACHE).catch(() => {});
}

// The moment the lobby was saved, in the page's language and the player's time zone.
function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const language = document.documentElement.lang || undefined;
  const fields = { dateStyle: "medium", timeStyle: "short" };
  try {
    return new Intl.DateTimeFormat(language, { ...fields, timeZone: body.dataset.timeZone || undefined }).format(date);
  } catch (error) {
    return new Intl.DateTimeFormat(language, fields).format(date); // an unknown zone
  }
}

const banner = document.getElementById("offline-banner");
const copyLine = banner?.querySelector('[data-case="copy"]');
const offlineLine = banner?.querySelector('[data-case="offline"]');

if (savedAt && copyLine) {
  const time = copyLine.querySelector("time");
  if (time) {
    time.dateTime = savedAt;
    time.textContent = when(savedAt);
  }
}

function show() {
  if (copyLine) copyLine.hidden = !savedAt;
  // the offline page says so itself
  if (offlineLine) offlineLine.hidden = Boolean(savedAt) || isOfflinePage || navigator.onLine;
}

// Once: a second reload would cut the first one short.
let reloading = false;
function reload() {
  if (reloading) return;
  reloading = true;
  location.reload();
}

show();
addEventListener("offline", show);
addEventListener("online", () => {
  show();
  // the kept lobby and the offline page stand in for a page: the real one, now
  if (savedAt || isOfflinePage) setTimeout(() => navigator.onLine && reload(), SETTLE_MS);
});

// The browser may think itself online when the site cannot be reached, and then never
// says "online": the kept lobby asks the site itself now and then.
if (savedAt) {
  setInterval(async () => {
    try {
      const response = await fetch(location.href, { method: "HEAD", cache: "no-store" });
      if (response.ok) reload();
    } catch (error) {
      // still no connection
    }
  }, RETRY_MS);
}

document.getElementById("try-again")?.addEventListener("click", reload);
