// Tabula preview: each screen of the catalogue drawn by the web client (/client/tabula.js,
// the same renderer an app embeds) in a phone-sized frame, beside an inspector that shows
// what happens: the session, the copy's revision and definition, the stream, the last change
// set, effects, a log, and the catalogue's problems. Plain JavaScript, no build step, nothing
// loaded from elsewhere. See docs/preview.md.

// The client's URL carries its version (`?v=`, from the page's own URL): the client is
// cached for a day, and this page must run the client of the binary that served it.
const clientVersion = new URL(import.meta.url).searchParams.get("client");
const { mount, applyChangeSet } = await import(`/client/tabula.js${clientVersion ? `?v=${encodeURIComponent(clientVersion)}` : ""}`);

const params = new URLSearchParams(location.search);
const apiKey = params.get("key");
const CATALOGUE_POLL_MS = 1000;

const $ = (selector, root = document) => root.querySelector(selector);

/** The screen page's state; the screen's copy itself is the view's. */
const page = {
  screenID: "",
  item: null,
  session: "",
  view: null,
  applied: 0,
  refetched: 0,
  locale: null,
  defaultLocale: null,
};

// ---------------------------------------------------------------- HTTP (the catalogue; the screen's requests are the client's)

async function request(method, path, { timeout = 15000 } = {}) {
  const headers = { Accept: "application/json" };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeout);
  try {
    const response = await fetch(path, { method, headers, cache: "no-store", signal: abort.signal });
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
    if (!response.ok) throw new Error((json && (json.detail || json.title)) || `HTTP ${response.status}`);
    return json;
  } finally {
    clearTimeout(timer);
  }
}

/** The preview URL of a screen (an item screen's with its item), keeping the session, its language and the API key. */
function previewURL(screenID, session, item = screenID === page.screenID ? page.item : null) {
  const query = new URLSearchParams();
  if (item) query.set("item", item);
  if (session) query.set("session", session);
  if (session && page.locale) query.set("locale", page.locale);
  if (apiKey) query.set("key", apiKey);
  const text = query.toString();
  return `/preview/${encodeURIComponent(screenID)}${text ? `?${text}` : ""}`;
}

/** The list page's URL, keeping the API key. */
function listURL() {
  return apiKey ? `/preview?key=${encodeURIComponent(apiKey)}` : "/preview";
}

/** Where the navigation bar's back button goes: the preview page this one was opened from, else the list. */
function backURL() {
  const from = document.referrer;
  if (from && from.startsWith(`${location.origin}/preview/`) && from !== location.href) return from;
  return listURL();
}

// ---------------------------------------------------------------- small DOM helpers

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function svg(markup, className) {
  const span = el("span", className);
  span.setAttribute("aria-hidden", "true");
  span.innerHTML = markup;
  return span;
}

const ICONS = {
  chevron: '<svg viewBox="0 0 8 13" width="8" height="13"><path d="M1.5 1.5 6.5 6.5 1.5 11.5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  checkmark: '<svg viewBox="0 0 14 12" width="14" height="12"><path d="M1.5 6.6 5.2 10.2 12.5 1.6" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  info: '<svg viewBox="0 0 22 22" width="22" height="22"><circle cx="11" cy="11" r="9.9" fill="none" stroke="currentColor" stroke-width="1.5"/><circle cx="11" cy="6.6" r="1.3" fill="currentColor"/><path d="M9 9.6h2.6v6.2M8.9 15.8h4.4" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  back: '<svg viewBox="0 0 12 21" width="12" height="21"><path d="M10 1.5 1.8 10.5 10 19.5" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/></svg>',
};

function setText(selector, text) {
  for (const node of document.querySelectorAll(selector)) node.textContent = text;
}

let toastTimer = 0;
function toast(message, tone = "info") {
  const node = $("#toast");
  node.textContent = message;
  node.dataset.tone = tone;
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.hidden = true; }, 3500);
}

function log(message, tone = "info") {
  const list = $("#log");
  const item = el("li", `log-${tone}`);
  const time = el("time", "", new Date().toLocaleTimeString([], { hour12: false }));
  item.append(time, " ", message);
  list.prepend(item);
  while (list.children.length > 60) list.lastChild.remove();
}

function banner(message, action, reason = "") {
  const node = $("#banner");
  node.dataset.reason = reason;
  node.replaceChildren(el("span", "", message));
  if (action) {
    const link = el("a", "banner-action", action.label);
    link.href = action.href;
    node.append(" ", link);
  }
  node.hidden = false;
}

// ---------------------------------------------------------------- the catalogue

let catalogueText = "";
const catalogueListeners = [];
let catalogueTimer = 0;
let paused = false;

async function pollCatalogue() {
  clearTimeout(catalogueTimer);
  if (paused) return;
  try {
    const catalogue = await request("GET", "/preview/api/catalogue", { timeout: 5000 });
    const text = JSON.stringify(catalogue);
    if (text !== catalogueText) {
      catalogueText = text;
      showCatalogue(catalogue);
      for (const listener of catalogueListeners.slice()) listener(catalogue);
    }
  } catch (error) {
    setText('[data-field="catalogue"]', `unreachable (${error.message})`);
  } finally {
    if (!paused) catalogueTimer = setTimeout(pollCatalogue, CATALOGUE_POLL_MS);
  }
}

function problemLine(problem) {
  let place = problem.file || "";
  if (problem.line !== undefined && problem.line !== null) place += `:${problem.line}`;
  if (problem.column !== undefined && problem.column !== null) place += `:${problem.column}`;
  return [place, problem.path, problem.message].filter((part) => part !== undefined && part !== null && part !== "").join(" ");
}

let catalogueSeen = null;

function showCatalogue(catalogue) {
  const problems = catalogue.problems || [];
  const screens = catalogue.screens || [];
  if (catalogueSeen && catalogueSeen.version !== catalogue.version) log(`definitions reloaded: catalogue version ${catalogue.version}`);
  if (problems.length && (!catalogueSeen || catalogueSeen.problems !== JSON.stringify(problems))) {
    log(`the last reload failed: ${problems.length} problem${problems.length === 1 ? "" : "s"}`, "error");
  } else if (!problems.length && catalogueSeen && catalogueSeen.problems !== "[]") {
    log("the catalogue has no problems any more");
  }
  if (!catalogueSeen) log(`catalogue version ${catalogue.version}, ${screens.length} screens`);
  catalogueSeen = { version: catalogue.version, problems: JSON.stringify(problems) };
  setText('[data-field="catalogue"]',
    `version ${catalogue.version}, ${screens.length} screen${screens.length === 1 ? "" : "s"}` +
    (problems.length ? `, ${problems.length} problem${problems.length === 1 ? "" : "s"}` : ""));
  const list = $("#catalogue-problems");
  list.replaceChildren(...problems.map((problem) => {
    const item = el("li", "", problemLine(problem));
    item.dataset.file = problem.file || "";
    return item;
  }));
  list.hidden = problems.length === 0;
  $("#problems-box").hidden = problems.length === 0;
  document.body.dataset.problems = String(problems.length);
  const warnings = catalogue.warnings || [];
  $("#catalogue-warnings").replaceChildren(...warnings.map((warning) => el("li", "", problemLine(warning))));
  $("#warnings-box").hidden = warnings.length === 0;
  showLocales(catalogue.locales || [], catalogue.defaultLocale);
}

// ---------------------------------------------------------------- the language

/** The language menu: the catalogue's locales, the session's selected. */
function showLocales(locales, defaultLocale) {
  const menu = $("#locale");
  // A session joined without `&locale` may be in any language (another window chose it),
  // which the page cannot read: the menu says so rather than claim the default.
  const unknown = Boolean(page.session) && !page.locale;
  const values = (unknown ? [""] : []).concat(locales);
  const shown = Array.from(menu.options, (option) => option.value).join(",");
  if (shown !== values.join(",")) {
    menu.replaceChildren(...values.map((locale) => {
      const name = locale === "" ? "the session's language" : locale === defaultLocale ? `${locale} (default)` : locale;
      const option = el("option", "", name);
      option.value = locale;
      option.disabled = locale === "";
      return option;
    }));
  }
  page.defaultLocale = defaultLocale;
  menu.value = page.locale || (unknown ? "" : defaultLocale || "");
  menu.disabled = locales.length === 0 || !page.session;
}

/**
 * Asks for the screen in another language: the session's client context changes, and the
 * screen's stream brings the change set, as for any change of the session.
 */
async function chooseLocale(locale) {
  const menu = $("#locale");
  menu.disabled = true;
  try {
    const answer = await page.view.setLocale(locale);
    page.locale = (answer.client && answer.client.locale) || locale;
    log(`language ${page.locale}: revision ${answer.fromRevision} → ${answer.toRevision}`);
    history.replaceState(null, "", previewURL(page.screenID, page.session));
  } catch (error) {
    log(`the language could not be changed: ${error.message}`, "error");
  } finally {
    menu.value = page.locale || page.defaultLocale || "";
    menu.disabled = false;
  }
}

// ---------------------------------------------------------------- the list page

function listPage() {
  document.body.dataset.page = "list";
  $("#screen").remove();
  document.title = "Screens — Tabula preview";
  setText("#large-title", "Screens");
  setText("#navbar-title", "Screens");
  setText('[data-field="screen"]', "— (the list of screens)");
  const list = $("#screen-list");
  list.dataset.style = "insetGrouped";
  let drawn = "";

  function draw(screens) {
    const text = JSON.stringify(screens);
    if (text === drawn) return;
    drawn = text;
    list.replaceChildren(...screens.map((screen) => {
      const item = el("li", "screen-list-item");
      const link = el("a", "screen-list-link");
      link.href = previewURL(screen.id);
      link.dataset.screenId = screen.id;
      const text = el("span", "screen-list-text");
      text.append(el("span", "screen-list-title", screen.title), el("span", "screen-list-id", screen.id));
      link.append(text);
      if (screen.file) link.append(el("span", "screen-list-file", screen.file));
      link.append(svg(ICONS.chevron, "accessory accessory-chevron"));
      item.append(link);
      return item;
    }));
    if (screens.length === 0) list.append(el("li", "screen-list-empty", "No screens"));
    document.body.dataset.ready = "true";
  }

  // Item screens open through navigation, with an item: the list leaves them out.
  catalogueListeners.push((catalogue) => draw((catalogue.screens || []).filter((screen) => !screen.itemList)));
  // The catalogue route comes with --preview; /v1/screens is the fallback when it is missing.
  request("GET", "/preview/api/catalogue", { timeout: 5000 })
    .catch(() => request("GET", "/v1/screens"))
    .then((answer) => draw((answer.screens || []).filter((screen) => !screen.itemList)))
    .catch((error) => banner(`Could not read the screens: ${error.message}`));
  pollCatalogue();
}

// ---------------------------------------------------------------- the screen page

function showCopy(screen) {
  setText('[data-field="revision"]', screen ? String(screen.revision) : "—");
  setText('[data-field="definition"]', screen ? screen.definition : "—");
  if (!screen) return;
  setText("#large-title", screen.title);
  setText("#navbar-title", screen.title);
  document.title = `${screen.title} — Tabula preview`;
}

function bumpApplied() {
  page.applied += 1;
  document.body.dataset.applied = String(page.applied);
}

function showChanges(changes, source) {
  $("#last-changes").textContent = JSON.stringify(changes, null, 2);
  $("#last-changes-source").textContent = source;
}

/** Says where the page goes, before the answer counts as applied: whoever waits on body[data-applied] then knows a navigation follows. */
function announceNavigation(effects) {
  const navigation = (effects || []).find((effect) => effect.type === "navigate" || effect.type === "back");
  if (navigation) document.body.dataset.navigating = navigation.screen || "back";
}

function screenProblem(error) {
  const slug = error && error.slug ? error.slug : "";
  if (slug === "unknown-session" || slug === "missing-session") {
    banner("This session is unknown (ended, expired, or from another server).", { label: "Start a new session", href: previewURL(page.screenID) },
      "unknown-session");
  } else if (slug === "unknown-screen") {
    banner(`There is no screen "${page.screenID}".`, { label: "All screens", href: listURL() }, "unknown-screen");
  } else if (slug === "unknown-item") {
    banner(`The item "${page.item || ""}" is not in its list (it was removed, or never added).`, { label: "Back", href: backURL() }, "unknown-item");
  } else {
    banner(`Could not load the screen: ${error.message}`);
  }
  log(`error: ${error.message}`, "error");
}

function showEffect(effect) {
  if (effect.type === "openURL") {
    const list = $("#effects");
    const item = el("li", "effect");
    item.dataset.type = "openURL";
    // A web page's URL is a link the author may follow; any other (mailto:, an app's own
    // scheme) is shown as text: the page's URL holds the session's token and key.
    const web = /^https?:/i.test(effect.url);
    const link = el(web ? "a" : "code", "", effect.url);
    if (web) {
      link.href = effect.url;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
    }
    item.append(el("span", "effect-type", "openURL"), " ", link);
    list.prepend(item);
    toast(`Open URL: ${effect.url}`);
    log(`effect: openURL ${effect.url}`);
  } else if (effect.type === "navigate") {
    log(`effect: navigate to ${effect.screen}${effect.item ? ` (item ${effect.item})` : ""}`);
    announceNavigation([effect]);
    location.assign(previewURL(effect.screen, page.session, effect.item || null));
  } else if (effect.type === "back") {
    log("effect: back");
    announceNavigation([effect]);
    location.assign(backURL());
  } else {
    log(`effect: ${JSON.stringify(effect)}`);
  }
}

const STREAM_TEXT = { idle: "not connected", connecting: "connecting", connected: "connected", reconnecting: "reconnecting", closed: "closed" };

function setStreamStatus(state, text = STREAM_TEXT[state] || state) {
  const status = $("#stream-status");
  status.dataset.state = state;
  status.textContent = text;
}

/** The stream said the view's screen, item or session is gone: say so, with the way on. */
function gone(reason) {
  if (reason === "item-removed") {
    setStreamStatus("closed", "item removed");
    banner(`The item "${page.item}" was removed from its list; the page shows its last copy.`, { label: "Back", href: backURL() }, "item-removed");
    log("stream: the item was removed", "error");
  } else if (reason === "screen-removed") {
    setStreamStatus("closed", "screen removed");
    banner(`The screen "${page.screenID}" was removed from the catalogue; the page shows its last copy.`,
      { label: "All screens", href: listURL() }, "screen-removed");
    log("stream: the screen was removed", "error");
    waitForScreen();
  } else {
    setStreamStatus("closed", "session ended");
    banner("The session ended (deleted or expired).", { label: "Start a new session", href: previewURL(page.screenID) }, "gone");
    log(`stream: the session is gone${reason ? ` (${reason})` : ""}`, "error");
  }
}

/** After the screen was removed: once the catalogue has it again, catch up and follow its stream again. */
function waitForScreen() {
  const listener = (catalogue) => {
    if (!(catalogue.screens || []).some((screen) => screen.id === page.screenID)) return;
    catalogueListeners.splice(catalogueListeners.indexOf(listener), 1);
    log("the screen is back in the catalogue: fetching it again");
    page.view.refresh().then(() => {
      const note = $("#banner");
      if (note.dataset.reason !== "screen-removed") return;
      note.hidden = true;
      // Gone with the notice: a later removal that only the catalogue sees is told again.
      note.dataset.reason = "";
    });
  };
  catalogueListeners.push(listener);
}

/** Mounts the web client on #screen, in the page's session (or a new one), and shows what it does. */
function mountScreen(session) {
  const view = mount($("#screen"), {
    baseURL: location.origin, screen: page.screenID, session: session || undefined, item: page.item || undefined, apiKey,
    // The preview draws every kind the catalogue has, a custom one as its fields: it lists
    // no kinds in its session's client context, so the service sends every kind as it is.
    kinds: null, title: false, ghostLayer: $("#ghosts"),
  });
  page.view = view;
  view.addEventListener("session", ({ detail }) => {
    page.session = detail.session;
    page.locale = (detail.client && detail.client.locale) || null;
    setText('[data-field="session-id"]', detail.id);
    history.replaceState(null, "", previewURL(page.screenID, detail.session));
    log(`new session ${detail.id}`);
    showSession();
  });
  view.addEventListener("update", ({ detail }) => {
    showCopy(detail.screen);
    if (detail.source === "load") {
      document.body.dataset.ready = "true";
      log(`GET: screen at revision ${detail.toRevision}`);
      return;
    }
    announceNavigation(detail.effects);
    if (detail.changes) {
      const what = detail.event ? `answer to ${detail.event.kind} ${detail.event.row}` : detail.source;
      showChanges(detail.changes, `${what}, ${detail.fromRevision} → ${detail.toRevision}`);
    } else {
      page.refetched += 1;
      document.body.dataset.refetched = String(page.refetched);
      log(`${detail.source}: whole screen at revision ${detail.toRevision}`);
    }
    bumpApplied();
  });
  view.addEventListener("effect", ({ detail }) => showEffect(detail.effect));
  view.addEventListener("send", ({ detail }) => {
    const body = detail.body;
    const more = "isOn" in body ? ` → ${body.isOn ? "on" : "off"}` : body.to ? ` → [${body.to.section}, ${body.to.row}]` : body.action ? ` ${body.action}` : "";
    log(`${detail.kind} ${detail.row}${more}`);
  });
  view.addEventListener("retry", ({ detail }) => log(`${detail.kind} ${detail.row}: no answer (${detail.error.message}); sending it again`, "error"));
  view.addEventListener("error", ({ detail }) => {
    const error = detail.error;
    if (detail.kind) {
      // An event the service refused: a 409 made the view fetch the screen again.
      log(`${detail.kind} ${detail.row}: ${error.slug || "error"}: ${error.message}`, "error");
      if (error.status === 409) toast("The screen was out of date and was fetched again; try again.");
      else toast(error.message, "error");
      if (error.status === 401) screenProblem(error);
    } else {
      screenProblem(error);
    }
  });
  view.addEventListener("stream", ({ detail }) => {
    setStreamStatus(detail.state);
    if (detail.state === "connected") log("stream connected");
  });
  view.addEventListener("gone", ({ detail }) => gone(detail.reason));
  return view;
}

function showSession() {
  setText('[data-field="session"]', page.session);
  if (catalogueText) showCatalogue(JSON.parse(catalogueText));
  const another = $("#open-another");
  another.href = previewURL(page.screenID, page.session);
  another.hidden = false;
  const fresh = $("#new-session");
  fresh.href = previewURL(page.screenID);
  fresh.hidden = false;
}

function screenPage(screenID) {
  document.body.dataset.page = "screen";
  $("#screen-list").remove();
  page.screenID = screenID;
  page.item = params.get("item");
  $("#screen").dataset.screenId = screenID;
  setText('[data-field="screen"]', page.item ? `${screenID} (item ${page.item})` : screenID);
  const back = $("#back");
  back.hidden = false;
  back.href = page.item ? backURL() : listURL();
  back.prepend(svg(ICONS.back, "navbar-back-icon"));
  const scroller = $("#scroller");
  scroller.addEventListener("scroll", () => {
    document.body.classList.toggle("scrolled", scroller.scrollTop > 36);
  }, { passive: true });
  catalogueListeners.push((catalogue) => {
    const known = (catalogue.screens || []).some((screen) => screen.id === screenID);
    const note = $("#banner");
    // The stream's own word for a removed screen stays (its banner leads back when the
    // screen returns).
    if (!known && page.view && page.view.copy && note.dataset.reason !== "screen-removed") {
      banner(`The catalogue no longer has the screen "${screenID}"; the page shows the last copy.`,
        { label: "All screens", href: listURL() }, "missing-screen");
    } else if (known && note.dataset.reason === "missing-screen") {
      note.hidden = true;
      note.dataset.reason = "";
    }
  });
  pollCatalogue();
  const menu = $("#locale");
  menu.addEventListener("change", () => chooseLocale(menu.value));

  const session = params.get("session");
  page.locale = session ? params.get("locale") : null;
  if (session) {
    page.session = session;
    showSession();
  }
  mountScreen(session);
}

// ---------------------------------------------------------------- start

// A page left for another one may be kept in the back/forward cache: it must hold no
// stream then (Chrome keeps a cached page's connections, and six per host is all there is,
// so a few navigations would stall the next page). Shown again, it mounts the screen anew
// in its session, which brings it up to date.
window.addEventListener("pagehide", () => {
  paused = true;
  clearTimeout(catalogueTimer);
  if (page.view) page.view.close("the page was hidden");
});
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  paused = false;
  delete document.body.dataset.navigating;
  pollCatalogue();
  if (page.view && page.session) mountScreen(page.session);
});

function start() {
  document.body.dataset.applied = "0";
  const path = location.pathname.replace(/\/+$/, "");
  if (path === "/preview" || path === "") {
    listPage();
  } else if (path.startsWith("/preview/")) {
    screenPage(decodeURIComponent(path.slice("/preview/".length)));
  }
}

// Exposed for debugging from the console; tests use the DOM.
window.tabulaPreview = { applyChangeSet, page };

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
