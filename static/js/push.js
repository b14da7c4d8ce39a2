// Push notifications in this browser (docs/api.md, "Push notifications"): turning them
// on and off from the profile, the one offer after the player's first move on a board,
// and keeping the server's record of this browser current. Words come from the page.

const STORE = "push-device"; // {user, endpoint, id, at}: what this browser told the server
const OFFERED = "push-offered"; // the offer after a first move was answered on this device
const REFRESH_MS = 7 * 24 * 3600 * 1000; // re-send the subscription weekly: keys may rotate

export function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

const player = () => document.body.dataset.user || "";

function csrfToken() {
  const field = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (field) return field.value;
  return document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1] ?? "";
}

async function post(path, data = {}) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "X-CSRFToken": csrfToken(), "Content-Type": "application/json" },
    body: JSON.stringify(data),
    credentials: "same-origin",
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error?.code ?? `HTTP ${response.status}`);
  return body;
}

function keyBytes(key) {
  const text = atob(key.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (key.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function sameKey(subscription, key) {
  const used = subscription.options?.applicationServerKey;
  if (!used) return true; // the browser does not say: trust it
  const a = new Uint8Array(used);
  const b = keyBytes(key);
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function saved() {
  try {
    return JSON.parse(localStorage.getItem(STORE) || "null");
  } catch {
    return null;
  }
}

async function registration() {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

async function current() {
  const reg = await navigator.serviceWorker.getRegistration("/");
  return reg ? reg.pushManager.getSubscription() : null;
}

async function tellServer(subscription) {
  const device = await post("/api/push/subscriptions/", subscription.toJSON());
  localStorage.setItem(
    STORE,
    JSON.stringify({ user: player(), endpoint: subscription.endpoint, id: device.id, at: Date.now() }),
  );
}

// "unavailable" (no push on this server), "unsupported", "denied", "on" or "off".
export async function state(key) {
  if (!key) return "unavailable";
  if (!supported()) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  const subscription = await current();
  const mine = saved()?.user === player() && saved()?.endpoint === subscription?.endpoint;
  return subscription && Notification.permission === "granted" && mine ? "on" : "off";
}

// Asks the browser (a click must have led here), subscribes and tells the server.
export async function turnOn(key) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission === "denied" ? "denied" : "off";
  const reg = await registration();
  let subscription = await reg.pushManager.getSubscription();
  if (subscription && !sameKey(subscription, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await reg.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: keyBytes(key),
  });
  await tellServer(subscription);
  return "on";
}

export async function turnOff() {
  const subscription = await current();
  const device = saved();
  if (device?.id && device.user === player()) {
    await post(`/api/push/subscriptions/${device.id}/remove/`).catch(() => {});
  }
  localStorage.removeItem(STORE);
  if (subscription) await subscription.unsubscribe();
  return "off";
}

// On every page of a logged-in player: a browser subscribed for this player stays known
// to the server (a new key, a new endpoint, or a weekly refresh); one subscribed for
// someone else who did not log out here is let go, as this player never asked for it.
export async function keepCurrent(key) {
  if (!key || !supported() || Notification.permission !== "granted") return;
  let subscription = await current();
  const device = saved();
  if (!subscription || !device) return;
  if (device.user !== player()) {
    localStorage.removeItem(STORE);
    await subscription.unsubscribe();
    return;
  }
  if (!sameKey(subscription, key)) {
    await subscription.unsubscribe();
    const reg = await registration();
    subscription = await reg.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(key),
    });
  }
  if (subscription.endpoint !== device.endpoint || Date.now() - device.at > REFRESH_MS) {
    await tellServer(subscription);
  }
}

// -- the profile's section ---------------------------------------------------------------

function showState(section, name) {
  const box = section.querySelector(".push-state");
  box.dataset.pushState = name;
  for (const span of box.querySelectorAll("[data-state]")) span.hidden = span.dataset.state !== name;
  section.querySelector(".push-on").hidden = name !== "off";
  section.querySelector(".push-off").hidden = name !== "on";
}

async function profile(section) {
  const key = section.dataset.pushKey;
  showState(section, await state(key).catch(() => "off"));
  section.querySelector(".push-on").addEventListener("click", async () => {
    try {
      const result = await turnOn(key);
      if (result === "on") {
        location.hash = "devices";
        location.reload(); // the list of devices shows this one
        return;
      }
      showState(section, result);
    } catch (error) {
      console.error("push: could not turn on", error);
      showState(section, "failed");
      section.querySelector(".push-on").hidden = false;
    }
  });
  section.querySelector(".push-off").addEventListener("click", async () => {
    await turnOff().catch((error) => console.error("push: could not turn off", error));
    location.hash = "devices";
    location.reload();
  });
}

// -- the offer after a first move ---------------------------------------------------------

// Shown once per device, after the player's own move (never when a page opens), and only
// where notifications could work and were neither refused nor turned on already.
export async function offerAfterMove() {
  const offer = document.getElementById("push-offer");
  if (!offer || !offer.hidden || localStorage.getItem(OFFERED)) return;
  const key = offer.dataset.pushKey;
  if (!key || !supported() || Notification.permission !== "default") return;
  if (await current()) return;
  const answered = () => {
    localStorage.setItem(OFFERED, new Date().toISOString());
    offer.hidden = true;
  };
  offer.querySelector(".push-offer-yes").addEventListener("click", async () => {
    answered();
    try {
      await turnOn(key);
    } catch (error) {
      console.error("push: could not turn on", error);
    }
  }, { once: true });
  offer.querySelector(".push-offer-no").addEventListener("click", answered, { once: true });
  offer.hidden = false;
}

const section = document.getElementById("devices");
if (section?.dataset.pushKey !== undefined && supported()) {
  profile(section);
} else if (section) {
  showState(section, section.dataset.pushKey ? "unsupported" : "unavailable");
}
