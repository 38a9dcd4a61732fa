// Tabula preview: draws a screen the way UITableView does, sends its events, applies the
// change sets of the answers and of the screen's stream, and shows what happened. Plain
// JavaScript, no build step, no external resources. See docs/preview.md.
"use strict";

(() => {
  const params = new URLSearchParams(location.search);
  const apiKey = params.get("key");
  const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
  const ANIMATION_MS = 250;
  const CATALOGUE_POLL_MS = 1000;

  const $ = (selector, root = document) => root.querySelector(selector);

  // ---------------------------------------------------------------- HTTP

  /** An answer that is not 2xx: its status and problem document. */
  class Problem extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
      this.status = status;
      this.problem = problem || {};
    }
    get slug() {
      return String(this.problem.type || "").replace("urn:tabula:problem:", "");
    }
  }

  async function request(method, path, { body, session, timeout = 15000 } = {}) {
    const headers = { Accept: "application/json" };
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    if (session) headers["X-Session"] = session;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeout);
    try {
      const response = await fetch(path, {
        method, headers, cache: "no-store", signal: abort.signal,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let json = null;
      try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
      if (!response.ok) throw new Problem(response.status, json);
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

  /** The API path of the page's screen (`suffix`: `/stream`, `/edit`, …), with `?item=` on an item screen. */
  function screenPath(suffix = "") {
    const path = `/v1/screens/${encodeURIComponent(page.screenID)}${suffix}`;
    return page.item ? `${path}?item=${encodeURIComponent(page.item)}` : path;
  }

  /** Where the navigation bar's back button goes: the preview page this one was opened from, else the list. */
  function backURL() {
    const from = document.referrer;
    if (from && from.startsWith(`${location.origin}/preview/`) && from !== location.href) return from;
    return listURL();
  }

  function randomID() {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
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
    const shown = Array.from(menu.options, (option) => option.value).join(",");
    if (shown !== locales.join(",")) {
      menu.replaceChildren(...locales.map((locale) => {
        const option = el("option", "", locale === defaultLocale ? `${locale} (default)` : locale);
        option.value = locale;
        return option;
      }));
    }
    page.defaultLocale = defaultLocale;
    menu.value = page.locale || defaultLocale || "";
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
      const answer = await request("PUT", "/v1/session/client", { session: page.session, body: { locale } });
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

  // ---------------------------------------------------------------- applying a change set

  class Mismatch extends Error {}

  /** Inserts `insertions` ({index, item}) at their final indexes among `remaining`, as ChangeSet.merge does. */
  function merge(remaining, insertions, what) {
    if (insertions.length === 0) return remaining;
    const sorted = insertions.slice().sort((a, b) => a.index - b.index);
    const total = remaining.length + sorted.length;
    const result = [];
    let r = 0;
    let i = 0;
    for (let position = 0; position < total; position++) {
      if (i < sorted.length && sorted[i].index === position) {
        result.push(sorted[i].item);
        i++;
      } else if (r < remaining.length) {
        result.push(remaining[r]);
        r++;
      } else {
        throw new Mismatch(`${what} inserted at ${sorted[i].index} is past the end`);
      }
    }
    if (i !== sorted.length) throw new Mismatch(`${what} inserted at ${sorted[i].index} is past the end or repeated`);
    return result;
  }

  function setHeaderFooter(section, key, value) {
    if (value === undefined || value === null) delete section[key];
    else section[key] = value;
  }

  /**
   * Applies a change set to a screen in the order of one performBatchUpdates (see
   * docs/api.md#change-sets and ChangeSet+Apply.swift): remove deleted and moved-out rows
   * (old paths), remove deleted and moved-out sections (old indexes), insert new and moved
   * sections (new indexes, ascending), insert new and moved rows (new paths, ascending), then
   * set updated content. Throws Mismatch when the change set does not fit the screen.
   */
  function applyChangeSet(screen, changes) {
    const sectionChanges = changes.sections || {};
    const rowChanges = changes.rows || {};
    const list = (value) => value || [];
    const old = screen.sections;
    const rowAt = (path) => (old[path.section] ? old[path.section].rows[path.row] : undefined);
    const slots = old.map((section) => ({ ...section, rows: section.rows.slice() }));

    // 1. Deleted and moved-out rows, by their old paths.
    const removed = new Map();
    const remove = (path) => {
      if (!removed.has(path.section)) removed.set(path.section, new Set());
      removed.get(path.section).add(path.row);
    };
    for (const path of list(rowChanges.deleted)) {
      if (!rowAt(path)) throw new Mismatch(`deleted row ${path.section}.${path.row} is not in the screen`);
      remove(path);
    }
    const movedRows = new Map();
    for (const move of list(rowChanges.moved)) {
      const row = rowAt(move.from);
      if (!row) throw new Mismatch(`moved row ${move.from.section}.${move.from.row} is not in the screen`);
      movedRows.set(`${move.from.section}.${move.from.row}`, row);
      remove(move.from);
    }
    for (const [index, rows] of removed) {
      slots[index].rows = old[index].rows.filter((_, row) => !rows.has(row));
    }

    // 2. Deleted and moved-out sections, by their old indexes.
    const movedSections = new Map();
    for (const index of list(sectionChanges.deleted)) {
      if (!slots[index]) throw new Mismatch(`deleted section ${index} is not in the screen`);
      if (removed.has(index)) throw new Mismatch(`rows of deleted section ${index} are listed`);
      slots[index] = null;
    }
    for (const move of list(sectionChanges.moved)) {
      if (!slots[move.from]) throw new Mismatch(`moved section ${move.from} is not in the screen`);
      movedSections.set(move.from, slots[move.from]);
      slots[move.from] = null;
    }

    // 3. New and moved sections at their new indexes.
    const sectionInsertions = list(sectionChanges.inserted).map((insertion) => ({
      index: insertion.index,
      item: { ...insertion.section, rows: (insertion.section.rows || []).slice() },
    }));
    for (const move of list(sectionChanges.moved)) {
      sectionInsertions.push({ index: move.to, item: movedSections.get(move.from) });
    }
    const sections = merge(slots.filter(Boolean), sectionInsertions, "section");

    // 4. New and moved rows at their new paths.
    const rowInsertions = new Map();
    const insert = (section, index, item) => {
      if (!rowInsertions.has(section)) rowInsertions.set(section, []);
      rowInsertions.get(section).push({ index, item });
    };
    for (const insertion of list(rowChanges.inserted)) insert(insertion.section, insertion.row, insertion.model);
    for (const move of list(rowChanges.moved)) {
      insert(move.to.section, move.to.row, movedRows.get(`${move.from.section}.${move.from.row}`));
    }
    for (const [index, insertions] of rowInsertions) {
      if (!sections[index]) throw new Mismatch(`row inserted into section ${index}, which the new screen does not have`);
      sections[index].rows = merge(sections[index].rows, insertions, "row");
    }

    // 5. Updated content at the new indexes.
    for (const update of list(sectionChanges.updated)) {
      if (!sections[update.to]) throw new Mismatch(`updated section ${update.to} is not in the new screen`);
      setHeaderFooter(sections[update.to], "header", update.header);
      setHeaderFooter(sections[update.to], "footer", update.footer);
    }
    for (const update of list(rowChanges.updated)) {
      const section = sections[update.to.section];
      if (!section || update.to.row < 0 || update.to.row >= section.rows.length) {
        throw new Mismatch(`updated row ${update.to.section}.${update.to.row} is not in the new screen`);
      }
      section.rows[update.to.row] = update.model;
    }

    const result = { ...screen, sections };
    if (typeof changes.title === "string") result.title = changes.title;
    if ("style" in changes) {
      if (changes.style === null) delete result.style;
      else result.style = changes.style;
    }
    return result;
  }

  // ---------------------------------------------------------------- drawing rows

  const INPUT_KINDS = new Set(["textField", "slider", "stepper", "picker", "segmented", "datePicker"]);
  const BUILT_IN_KINDS = new Set(["basic", "subtitle", "leftRightTitles", "titleSwitch", "checkmark", "empty", "button", ...INPUT_KINDS]);
  const COMMON_ROW_KEYS = new Set([
    "id", "kind", "selectable", "deletable", "movable", "enabled", "editable", "error", "height", "estimatedHeight", "accessory",
    "leadingActions", "trailingActions", "accessibilityLabel", "accessibilityHint", "accessibilityValue",
  ]);
  /** The value field of each input kind: what an edit sends and the control shows. */
  const VALUE_FIELD = { textField: "text", slider: "value", stepper: "value", picker: "selected", segmented: "selected", datePicker: "value" };
  // Text inputs that keep a caret: an e-mail or number field is a text input with the
  // matching keyboard (`inputmode`), since browsers hide the caret of type=email and number.
  const TEXT_INPUT_TYPES = { password: "password", newPassword: "password", phone: "tel", url: "url", search: "search" };
  const INPUT_MODES = { email: "email", phone: "tel", url: "url", number: "numeric", decimal: "decimal", search: "search" };
  const AUTOCOMPLETE = { name: "name", username: "username", email: "email", password: "current-password", newPassword: "new-password", oneTimeCode: "one-time-code", phone: "tel", url: "url" };
  const DATE_INPUT_TYPES = { date: "date", time: "time", dateTime: "datetime-local" };
  const ICON_COLOURS = ["#007aff", "#34c759", "#ff9500", "#ff3b30", "#5856d6", "#af52de", "#ff2d55", "#5ac8fa", "#8e8e93"];

  function formatValue(value) {
    if (typeof value === "string") return value;
    return JSON.stringify(value);
  }

  /** A row image: an SF Symbol name, drawn as an iOS Settings-like rounded square. */
  function rowImage(name) {
    let hash = 0;
    for (const char of name) hash = (hash * 31 + char.codePointAt(0)) >>> 0;
    const image = el("span", "row-image");
    image.dataset.image = name;
    image.title = name;
    image.style.setProperty("--icon-colour", ICON_COLOURS[hash % ICON_COLOURS.length]);
    const letter = name.replace(/[^a-z]/gi, "").charAt(0).toUpperCase() || "•";
    image.append(el("span", "row-image-letter", letter));
    return image;
  }

  function rowSwitch(row) {
    const input = document.createElement("input");
    input.type = "checkbox";
    input.className = "row-switch";
    input.setAttribute("role", "switch");
    input.checked = Boolean(row.isOn);
    input.setAttribute("aria-label", row.title || row.id);
    return input;
  }

  /**
   * An input row's control: a native element per kind, named `.row-control`, disabled unless
   * the row is editable. Text is the copy's (a secure field's copy is always empty: the
   * page keeps what was typed in the element itself, and sends it with a submit).
   */
  function inputControl(row) {
    let control;
    switch (row.kind) {
      case "textField":
        if (row.multiline) {
          control = document.createElement("textarea");
          control.rows = 3;
        } else {
          control = document.createElement("input");
          control.type = row.secure ? "password" : TEXT_INPUT_TYPES[row.contentType] || "text";
          if (INPUT_MODES[row.contentType]) control.inputMode = INPUT_MODES[row.contentType];
        }
        control.autocomplete = AUTOCOMPLETE[row.contentType] || "off";
        if (row.placeholder) control.placeholder = row.placeholder;
        if (typeof row.maxLength === "number") control.maxLength = row.maxLength;
        control.value = row.text || "";
        break;
      case "slider":
      case "stepper":
        control = document.createElement("input");
        control.type = row.kind === "slider" ? "range" : "number";
        control.min = String(row.min);
        control.max = String(row.max);
        control.step = row.step > 0 ? String(row.step) : "any";
        control.value = String(row.value);
        break;
      case "picker":
        control = document.createElement("select");
        if (row.selected === null || row.selected === undefined) control.append(new Option("—", "", true, true));
        for (const option of row.options) control.append(new Option(option.title, option.id, false, option.id === row.selected));
        break;
      case "segmented":
        control = el("div", "row-segments");
        control.setAttribute("role", "radiogroup");
        for (const option of row.options) {
          const segment = el("button", "row-segment", option.title);
          segment.type = "button";
          segment.dataset.option = option.id;
          segment.setAttribute("role", "radio");
          segment.setAttribute("aria-checked", String(option.id === row.selected));
          control.append(segment);
        }
        break;
      case "datePicker":
        control = document.createElement("input");
        control.type = DATE_INPUT_TYPES[row.mode] || "date";
        if (row.min) control.min = row.min;
        if (row.max) control.max = row.max;
        control.value = row.value || "";
        break;
      default:
        return null;
    }
    control.classList.add("row-control");
    control.setAttribute("aria-label", row.title || row.id);
    setDisabled(control, !row.editable);
    return control;
  }

  function setDisabled(control, disabled) {
    if ("disabled" in control && control.tagName !== "DIV") control.disabled = disabled;
    for (const button of control.querySelectorAll?.("button") || []) button.disabled = disabled;
  }

  /** The value an input control shows, as an edit sends it. */
  function controlValue(row, control) {
    switch (row.kind) {
      case "slider":
      case "stepper": return control.value === "" ? null : Number(control.value);
      case "picker":
      case "datePicker": return control.value === "" ? null : control.value;
      default: return control.value;
    }
  }

  /**
   * Brings an input row's element to a new model of the same kind without rebuilding its
   * control: the control keeps its focus, caret and what the user typed since (a control
   * being edited is never overwritten).
   */
  function refreshInput(node, row) {
    const control = $(".row-control", node);
    if (!control) return false;
    const old = node._model;
    const focused = control.contains(document.activeElement);
    const rebuild = JSON.stringify(old.options) !== JSON.stringify(row.options) || old.multiline !== row.multiline
      || old.contentType !== row.contentType || old.secure !== row.secure || old.mode !== row.mode;
    if (rebuild && !focused) return false;
    $(".row-title", node).textContent = row.title || "";
    node.dataset.enabled = String(row.enabled !== false);
    setDisabled(control, !row.editable);
    for (const name of ["min", "max", "placeholder"]) {
      if (row[name] !== undefined && name in control) control[name] = String(row[name]);
    }
    if (!focused && !row.secure && !page.pendingEdits.has(row.id)) {
      if (row.kind === "segmented") {
        for (const segment of control.querySelectorAll(".row-segment")) segment.setAttribute("aria-checked", String(segment.dataset.option === row.selected));
      } else {
        const shown = row[VALUE_FIELD[row.kind]];
        const text = shown === null || shown === undefined ? "" : String(shown);
        if (control.value !== text) control.value = text;
      }
    }
    const error = $(".row-error", node);
    error.textContent = row.error || "";
    error.hidden = !row.error;
    node._model = row;
    node._json = JSON.stringify(row);
    return true;
  }

  function accessoryView(accessory) {
    switch (accessory) {
      case "disclosureIndicator": return svg(ICONS.chevron, "accessory accessory-chevron");
      case "detailButton": return svg(ICONS.info, "accessory accessory-detail");
      case "checkmark": return svg(ICONS.checkmark, "accessory accessory-checkmark row-checkmark");
      default: return null;
    }
  }

  /** Fills a row element from its model (a full rebuild of the content). */
  function fillRow(node, row) {
    node.className = "row";
    node.dataset.rowId = row.id;
    node.dataset.kind = row.kind;
    if (row.accessory !== undefined) node.dataset.accessory = row.accessory;
    else delete node.dataset.accessory;
    node.dataset.selectable = String(Boolean(row.selectable));
    node.dataset.deletable = String(Boolean(row.deletable));
    node.dataset.movable = String(Boolean(row.movable));
    node.dataset.enabled = String(row.enabled !== false);
    // Swipe actions: the leading edge's, then the trailing edge's, then Delete, in one tray.
    const swipeActions = [...(row.leadingActions || []), ...(row.trailingActions || [])];
    const trayButtons = swipeActions.length + (row.deletable ? 1 : 0);
    node.dataset.swipeable = String(trayButtons > 0);
    node.style.setProperty("--tray", `${80 * Math.max(trayButtons, 1)}px`);
    // What assistive technologies read: the definition's texts when it gives them.
    const spoken = [row.accessibilityLabel, row.accessibilityValue].filter((text) => text !== undefined && text !== "");
    if (spoken.length) node.setAttribute("aria-label", spoken.join(", "));
    else node.removeAttribute("aria-label");
    if (row.accessibilityHint !== undefined) node.setAttribute("aria-description", row.accessibilityHint);
    else node.removeAttribute("aria-description");
    if (row.kind === "checkmark") node.dataset.checked = String(Boolean(row.isChecked));
    else delete node.dataset.checked;
    if (row.kind === "button") node.dataset.buttonStyle = row.style || "default";
    else delete node.dataset.buttonStyle;
    node.classList.toggle("row-custom", !BUILT_IN_KINDS.has(row.kind));
    if (typeof row.height === "number") node.style.height = `${Math.max(0, row.height)}px`;
    else node.style.removeProperty("height");
    if (row.selectable) {
      node.setAttribute("role", "button");
      node.tabIndex = 0;
    } else {
      node.removeAttribute("role");
      node.removeAttribute("tabindex");
    }

    const inner = el("div", "row-inner");
    if (row.movable) {
      const grip = el("button", "row-grip");
      grip.type = "button";
      grip.title = "Drag to reorder (or use the arrow keys)";
      grip.setAttribute("aria-label", `Reorder ${row.accessibilityLabel || row.title || row.leftTitle || row.id}`);
      inner.append(grip);
    }
    if (row.deletable) {
      const remove = el("button", "row-delete");
      remove.type = "button";
      remove.title = "Delete";
      remove.setAttribute("aria-label", `Delete ${row.title || row.leftTitle || row.id}`);
      inner.append(remove);
    }
    if (row.kind === "subtitle" && row.image) inner.append(rowImage(row.image));

    const main = el("div", "row-main");
    const text = el("div", "row-text");
    const trailing = el("div", "row-trailing");
    switch (row.kind) {
      case "basic":
        text.append(el("span", "row-title", row.title));
        break;
      case "subtitle":
        text.append(el("span", "row-title", row.title), el("span", "row-subtitle", row.subtitle));
        break;
      case "leftRightTitles":
        text.append(el("span", "row-title", row.leftTitle));
        trailing.append(el("span", "row-detail", row.rightTitle));
        break;
      case "titleSwitch":
        text.append(el("span", "row-title", row.title));
        trailing.append(rowSwitch(row));
        break;
      case "checkmark":
        text.append(el("span", "row-title", row.title));
        if (row.isChecked) trailing.append(svg(ICONS.checkmark, "row-checkmark"));
        break;
      case "button":
        text.append(el("span", "row-title", row.title));
        break;
      case "empty":
        break;
      case "textField":
      case "slider":
      case "stepper":
      case "picker":
      case "segmented":
      case "datePicker": {
        node.classList.add("row-input");
        text.append(el("span", "row-title", row.title || ""));
        trailing.append(inputControl(row));
        break;
      }
      default: {
        const fields = el("dl", "row-fields");
        for (const name of Object.keys(row).filter((key) => !COMMON_ROW_KEYS.has(key)).sort()) {
          const field = el("div", "row-field");
          field.dataset.name = name;
          field.append(el("dt", "row-field-name", name), el("dd", "row-field-value", formatValue(row[name])));
          fields.append(field);
        }
        text.append(fields);
        trailing.append(el("span", "row-kind-badge", row.kind));
      }
    }
    const accessory = accessoryView(row.accessory);
    if (accessory) trailing.append(accessory);
    if (swipeActions.length) {
      // What a swipe reveals, for a keyboard or a mouse without one.
      const more = el("button", "row-actions", "⋯");
      more.type = "button";
      more.title = "Actions";
      more.setAttribute("aria-label", `Actions for ${row.accessibilityLabel || row.title || row.leftTitle || row.id}`);
      trailing.append(more);
    }
    main.append(text, trailing);
    inner.append(main);
    if (INPUT_KINDS.has(row.kind)) {
      const error = el("div", "row-error", row.error || "");
      error.setAttribute("role", "alert");
      error.hidden = !row.error;
      inner.append(error);
    }
    const children = [inner];
    if (trayButtons) {
      const tray = el("div", "row-swipe-tray");
      for (const action of swipeActions) {
        const button = el("button", "row-swipe-action", action.title);
        button.type = "button";
        button.dataset.action = action.id;
        button.dataset.style = action.style || "normal";
        tray.append(button);
      }
      if (row.deletable) {
        const action = el("button", "row-swipe-delete", "Delete");
        action.type = "button";
        tray.append(action);
      }
      for (const button of tray.children) button.tabIndex = -1;
      children.push(tray);
    }
    node.replaceChildren(...children);
    node._model = row;
    node._json = JSON.stringify(row);
  }

  /** Updates a row element; only a switch's state changing keeps the element as it is, so its knob slides. */
  function updateRow(node, row) {
    const old = node._model;
    if (INPUT_KINDS.has(row.kind) && old.kind === row.kind && refreshInput(node, row)) return;
    if (old.kind === "titleSwitch" && JSON.stringify({ ...old, isOn: row.isOn }) === JSON.stringify(row)) {
      const input = $(".row-switch", node);
      if (input) {
        input.checked = Boolean(row.isOn);
        node._model = row;
        node._json = JSON.stringify(row);
        return;
      }
    }
    fillRow(node, row);
  }

  function headerFooterView(model, role) {
    const node = el("div", `section-${role}`);
    node.dataset.kind = model.kind;
    if (model.kind === "titleHeader") {
      node.textContent = model.title;
    } else if (model.kind === "textFooter") {
      node.textContent = model.text;
    } else {
      node.classList.add("section-custom");
      node.append(el("span", "row-kind-badge", model.kind));
      const fields = el("dl", "row-fields");
      for (const name of Object.keys(model).filter((key) => key !== "kind").sort()) {
        const field = el("div", "row-field");
        field.dataset.name = name;
        field.append(el("dt", "row-field-name", name), el("dd", "row-field-value", formatValue(model[name])));
        fields.append(field);
      }
      node.append(fields);
    }
    return node;
  }

  function fillSectionChrome(node, section) {
    const headerJSON = JSON.stringify(section.header || null);
    const footerJSON = JSON.stringify(section.footer || null);
    if (node._header === headerJSON && node._footer === footerJSON) return false;
    const changed = node._header !== undefined;
    node._header = headerJSON;
    node._footer = footerJSON;
    const oldHeader = $(":scope > .section-header", node);
    const oldFooter = $(":scope > .section-footer", node);
    if (oldHeader) oldHeader.remove();
    if (oldFooter) oldFooter.remove();
    if (section.header) node.prepend(headerFooterView(section.header, "header"));
    if (section.footer) node.append(headerFooterView(section.footer, "footer"));
    node.classList.toggle("has-header", Boolean(section.header));
    node.classList.toggle("has-footer", Boolean(section.footer));
    return changed;
  }

  // ---------------------------------------------------------------- drawing the screen (keyed, animated)

  const sectionNodes = new Map();
  const rowNodes = new Map();

  function animate(node, keyframes, options = {}) {
    if (reducedMotion.matches || typeof node.animate !== "function") return null;
    return node.animate(keyframes, { duration: ANIMATION_MS, easing: "cubic-bezier(0.25, 0.1, 0.25, 1)", ...options });
  }

  /** A faded copy of a removed row or section, left where it was while it fades out. */
  function ghost(node, rect, layerRect) {
    if (reducedMotion.matches || !rect) return;
    const copy = node.cloneNode(true);
    copy.className = `ghost ${node.classList.contains("section") ? "ghost-section" : "ghost-row"}`;
    for (const child of copy.querySelectorAll("[data-row-id], [data-section-id]")) {
      delete child.dataset.rowId;
      delete child.dataset.sectionId;
    }
    copy.removeAttribute("data-row-id");
    copy.removeAttribute("data-section-id");
    copy.removeAttribute("id");
    copy.style.top = `${rect.top - layerRect.top}px`;
    copy.style.left = `${rect.left - layerRect.left}px`;
    copy.style.width = `${rect.width}px`;
    copy.style.height = `${rect.height}px`;
    $("#ghosts").append(copy);
    const animation = copy.animate([{ opacity: 1 }, { opacity: 0, transform: "scaleY(0.6)" }],
      { duration: ANIMATION_MS, easing: "ease-in", fill: "forwards" });
    animation.onfinish = () => copy.remove();
    setTimeout(() => copy.remove(), ANIMATION_MS + 200);
  }

  /**
   * Makes the DOM show `screen`, reusing the element of every section and row by id (never
   * by position), then animates: kept rows and sections slide from where they were (FLIP),
   * inserted ones fade in, removed ones fade out as ghosts, updated ones flash. The DOM holds
   * the final state as soon as this returns.
   */
  function draw(screen, { animated = true } = {}) {
    const main = $("#screen");
    const motion = animated && !reducedMotion.matches && main.isConnected;
    const layer = $("#ghosts");
    const before = new Map();
    if (motion) {
      for (const [id, node] of sectionNodes) {
        before.set(`s:${id}`, node.getBoundingClientRect());
        before.set(`b:${id}`, $(":scope > .section-rows", node).getBoundingClientRect());
        const header = $(":scope > .section-header", node);
        const footer = $(":scope > .section-footer", node);
        if (header) before.set(`h:${id}`, header.getBoundingClientRect());
        if (footer) before.set(`f:${id}`, footer.getBoundingClientRect());
      }
      for (const [id, node] of rowNodes) before.set(`r:${id}`, node.getBoundingClientRect());
    }
    const layerBefore = layer.getBoundingClientRect();

    main.dataset.screenId = screen.id;
    main.dataset.style = screen.style || "plain";
    main.dataset.revision = String(screen.revision);
    main.dataset.definition = screen.definition;
    setText("#large-title", screen.title);
    setText("#navbar-title", screen.title);
    document.title = `${screen.title} — Tabula preview`;

    const inserted = [];
    const updated = [];
    const seenSections = new Set();
    const seenRows = new Set();
    let previousSection = null;
    for (const section of screen.sections) {
      let node = sectionNodes.get(section.id);
      if (!node) {
        node = el("section", "section");
        node.dataset.sectionId = section.id;
        node.append(el("div", "section-rows"));
        sectionNodes.set(section.id, node);
        fillSectionChrome(node, section);
        inserted.push(node);
      } else if (fillSectionChrome(node, section)) {
        updated.push(...node.querySelectorAll(":scope > .section-header, :scope > .section-footer"));
      }
      const reference = previousSection ? previousSection.nextSibling : main.firstChild;
      if (node !== reference) main.insertBefore(node, reference);
      previousSection = node;
      seenSections.add(section.id);

      const body = $(":scope > .section-rows", node);
      let previousRow = null;
      for (const row of section.rows) {
        let rowNode = rowNodes.get(row.id);
        if (rowNode && rowNode._model.kind !== row.kind) {
          // Another kind is another cell: the old one leaves, a new one comes.
          ghost(rowNode, before.get(`r:${row.id}`), layerBefore);
          before.delete(`r:${row.id}`);
          rowNode.remove();
          rowNode = null;
        }
        if (!rowNode) {
          rowNode = el("div", "row");
          fillRow(rowNode, row);
          rowNodes.set(row.id, rowNode);
          if (!inserted.includes(node)) inserted.push(rowNode);
        } else if (rowNode._json !== JSON.stringify(row)) {
          updateRow(rowNode, row);
          updated.push(rowNode);
        }
        const rowReference = previousRow ? previousRow.nextSibling : body.firstChild;
        if (rowNode !== rowReference) body.insertBefore(rowNode, rowReference);
        previousRow = rowNode;
        seenRows.add(row.id);
      }
      node.classList.toggle("is-empty", section.rows.length === 0);
    }
    for (const [id, node] of rowNodes) {
      if (seenRows.has(id)) continue;
      if (!seenSections.has(node.closest(".section")?.dataset.sectionId)) {
        // Leaves with its section, whose ghost shows it.
      } else {
        ghost(node, before.get(`r:${id}`), layerBefore);
      }
      node.remove();
      rowNodes.delete(id);
    }
    for (const [id, node] of sectionNodes) {
      if (seenSections.has(id)) continue;
      ghost(node, before.get(`s:${id}`), layerBefore);
      node.remove();
      sectionNodes.delete(id);
    }

    if (!motion) return;
    // Animations still running from the last draw end here: the "before" rects above were
    // taken where they had got to, and the new places are measured without them.
    for (const animation of main.getAnimations({ subtree: true })) {
      if (animation.constructor === Animation) animation.cancel(); // Not CSS transitions: a switch keeps sliding.
    }
    // FLIP: each kept element starts where it was and slides to where it is.
    const sectionDelta = new Map();
    for (const [id, node] of sectionNodes) {
      const old = before.get(`s:${id}`);
      if (!old) continue;
      const now = node.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      sectionDelta.set(id, { dx, dy });
      if (Math.abs(dx) > 0.5 || Math.abs(dy) > 0.5) {
        animate(node, [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }]);
      }
      // The block of cells grows or shrinks as its rows come and go; its header and footer slide.
      const rows = $(":scope > .section-rows", node);
      const oldRows = before.get(`b:${id}`);
      const newRows = rows.getBoundingClientRect();
      if (Math.abs(oldRows.height - newRows.height) > 0.5) {
        animate(rows, [{ height: `${oldRows.height}px` }, { height: `${newRows.height}px` }]);
      }
      for (const [key, selector] of [[`h:${id}`, ":scope > .section-header"], [`f:${id}`, ":scope > .section-footer"]]) {
        const part = $(selector, node);
        const was = before.get(key);
        if (!part || !was) continue;
        const is = part.getBoundingClientRect();
        const partDy = was.top - is.top - dy;
        if (Math.abs(partDy) > 0.5) animate(part, [{ transform: `translateY(${partDy}px)` }, { transform: "none" }]);
      }
    }
    for (const [id, node] of rowNodes) {
      const old = before.get(`r:${id}`);
      if (!old) continue;
      const now = node.getBoundingClientRect();
      const parent = sectionDelta.get(node.closest(".section").dataset.sectionId) || { dx: 0, dy: 0 };
      const dx = old.left - now.left - parent.dx;
      const dy = old.top - now.top - parent.dy;
      if (Math.abs(dx) > 0.5 || Math.abs(dy) > 0.5) {
        animate(node, [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }]);
      }
    }
    for (const node of inserted) {
      animate(node, [{ opacity: 0, transform: "translateY(-8px)" }, { opacity: 1, transform: "none" }]);
    }
    for (const node of updated) {
      animate(node, [
        { boxShadow: "inset 0 0 0 100vmax var(--flash)" },
        { boxShadow: "inset 0 0 0 100vmax transparent" },
      ], { duration: 700, easing: "ease-out" });
    }
  }

  // ---------------------------------------------------------------- the screen page

  const page = {
    screenID: "",
    session: "",
    copy: null,
    applied: 0,
    refetched: 0,
    locale: null,
    defaultLocale: null,
    stream: null,
    streamCopy: null,
    queue: Promise.resolve(),
    /** Edits typed and not sent yet, by row id: a timer and the value. */
    pendingEdits: new Map(),
    /** What was typed into secure fields, by row id: sent again with a submit, never kept elsewhere. */
    secureValues: new Map(),
  };

  /** Runs `task` after every task queued before it: answers, stream events and refetches change the copy one at a time. */
  function enqueue(task) {
    page.queue = page.queue.then(task).catch((error) => {
      log(`error: ${error.message}`, "error");
      console.error(error);
    });
    return page.queue;
  }

  function showCopy() {
    const copy = page.copy;
    setText('[data-field="revision"]', copy ? String(copy.revision) : "—");
    setText('[data-field="definition"]', copy ? copy.definition : "—");
  }

  function bumpApplied() {
    page.applied += 1;
    document.body.dataset.applied = String(page.applied);
  }

  function showChanges(changes, source) {
    $("#last-changes").textContent = JSON.stringify(changes, null, 2);
    $("#last-changes-source").textContent = source;
  }

  /** Takes a whole screen (the first GET, a refetch, or the stream's `screen` event). */
  function acceptScreen(screen, source) {
    const copy = page.copy;
    if (copy && copy.definition === screen.definition && screen.revision < copy.revision) {
      log(`${source}: ignored an older screen (revision ${screen.revision})`);
      return;
    }
    const first = !copy;
    page.copy = screen;
    draw(screen, { animated: !first });
    showCopy();
    if (first) {
      document.body.dataset.ready = "true";
      log(`${source}: screen at revision ${screen.revision}`);
    } else {
      page.refetched += 1;
      document.body.dataset.refetched = String(page.refetched);
      bumpApplied();
      log(`${source}: whole screen at revision ${screen.revision}`);
    }
  }

  /** Applies a change set that goes from the page's copy to `definition`/`toRevision`. */
  function applyResult(result, source) {
    const next = applyChangeSet(page.copy, result.changes);
    next.revision = result.toRevision;
    next.definition = result.definition;
    page.copy = next;
    draw(next);
    showCopy();
    showChanges(result.changes, `${source}, ${result.fromRevision} → ${result.toRevision}`);
    bumpApplied();
  }

  async function refetch(reason) {
    log(`refetching the screen: ${reason}`);
    try {
      const screen = await request("GET", screenPath(), { session: page.session });
      acceptScreen(screen, "refetch");
    } catch (error) {
      screenProblem(error);
    }
  }

  function screenProblem(error) {
    const slug = error instanceof Problem ? error.slug : "";
    if (slug === "unknown-session" || slug === "missing-session") {
      banner("This session is unknown (ended, expired, or from another server).", { label: "Start a new session", href: previewURL(page.screenID) });
    } else if (slug === "unknown-screen") {
      banner(`There is no screen "${page.screenID}".`, { label: "All screens", href: listURL() });
    } else if (slug === "unknown-item") {
      banner(`The item "${page.item || ""}" is not in its list (it was removed, or never added).`, { label: "Back", href: backURL() }, "unknown-item");
    } else {
      banner(`Could not load the screen: ${error.message}`);
    }
    log(`error: ${error.message}`, "error");
  }

  /** A stream's `changes` event: applied when it starts at the page's copy, ignored when the copy already has it, else the screen is refetched. */
  function acceptStreamChanges(result, from) {
    const copy = page.copy;
    if (!copy) return;
    if (result.definition === copy.definition && result.toRevision <= copy.revision) {
      return; // The page's copy already has it (an answer came first).
    }
    if (from.definition === copy.definition && result.fromRevision === copy.revision) {
      try {
        applyResult(result, "stream");
        if (from.definition !== result.definition) log(`new definition ${result.definition}`);
        return;
      } catch (error) {
        if (!(error instanceof Mismatch)) throw error;
        log(`stream change set does not fit: ${error.message}`, "error");
      }
    }
    return refetch(`the stream went from ${from.definition}:${result.fromRevision}, the page shows ${copy.definition}:${copy.revision}`);
  }

  function openStream() {
    if (page.stream) page.stream.close();
    const copy = page.copy;
    const query = new URLSearchParams({ session: page.session, since: String(copy.revision), definition: copy.definition });
    if (apiKey) query.set("key", apiKey);
    if (page.item) query.set("item", page.item);
    const stream = new EventSource(`/v1/screens/${encodeURIComponent(page.screenID)}/stream?${query}`);
    page.stream = stream;
    page.streamCopy = { definition: copy.definition, revision: copy.revision };
    const status = $("#stream-status");
    const setStatus = (state, text) => {
      status.dataset.state = state;
      status.textContent = text;
    };
    setStatus("connecting", "connecting");
    // The copy a stream event starts from is the one its previous event (or the URL) named.
    const advance = (event) => {
      const from = page.streamCopy;
      const [definition, revision] = String(event.lastEventId || "").split(":");
      if (definition && revision !== undefined) page.streamCopy = { definition, revision: Number(revision) };
      return from;
    };
    stream.onopen = () => {
      setStatus("connected", "connected");
      log("stream connected");
    };
    stream.onerror = () => {
      if (page.stream !== stream) return;
      if (stream.readyState === EventSource.CLOSED) {
        // Refused (an unknown session, too many streams, a server restarted without the
        // session): read the screen again, which says why, and reopen if it can be read.
        setStatus("closed", "closed; retrying");
        log("stream refused; trying again in 3 s", "error");
        setTimeout(() => enqueue(async () => {
          if (page.stream !== stream || paused) return;
          try {
            const screen = await request("GET", screenPath(), { session: page.session });
            acceptScreen(screen, "refetch");
            openStream();
          } catch (error) {
            screenProblem(error);
            setStatus("closed", "closed");
          }
        }), 3000);
      } else {
        setStatus("reconnecting", "reconnecting");
      }
    };
    stream.addEventListener("screen", (event) => {
      advance(event);
      const screen = JSON.parse(event.data);
      enqueue(() => acceptScreen(screen, "stream"));
    });
    stream.addEventListener("changes", (event) => {
      const from = advance(event);
      const result = JSON.parse(event.data);
      enqueue(() => acceptStreamChanges(result, from));
    });
    stream.addEventListener("gone", (event) => {
      stream.close();
      page.stream = null;
      let reason = "";
      try { reason = (JSON.parse(event.data || "{}") || {}).reason || ""; } catch (_) { reason = ""; }
      if (reason === "item-removed") {
        setStatus("closed", "item removed");
        banner(`The item "${page.item}" was removed from its list; the page shows its last copy.`, { label: "Back", href: backURL() }, "item-removed");
        log("stream: the item was removed", "error");
      } else if (reason === "screen-removed") {
        setStatus("closed", "screen removed");
        banner(`The screen "${page.screenID}" was removed from the catalogue; the page shows its last copy.`,
          { label: "All screens", href: listURL() }, "screen-removed");
        log("stream: the screen was removed", "error");
        waitForScreen();
      } else {
        setStatus("closed", "session ended");
        banner("The session ended (deleted or expired).", { label: "Start a new session", href: previewURL(page.screenID) }, "gone");
        log(`stream: the session is gone${reason ? ` (${reason})` : ""}`, "error");
      }
    });
  }

  /** After the screen was removed: once the catalogue has it again, catch up and follow its stream again. */
  function waitForScreen() {
    const listener = (catalogue) => {
      if (!(catalogue.screens || []).some((screen) => screen.id === page.screenID)) return;
      catalogueListeners.splice(catalogueListeners.indexOf(listener), 1);
      enqueue(async () => {
        await refetch("the screen is back in the catalogue");
        if (!page.stream) openStream();
        if ($("#banner").dataset.reason === "screen-removed") $("#banner").hidden = true;
      });
    };
    catalogueListeners.push(listener);
  }

  function showEffects(effects) {
    for (const effect of effects || []) {
      if (effect.type === "openURL") {
        const list = $("#effects");
        const item = el("li", "effect");
        item.dataset.type = "openURL";
        const link = el("a", "", effect.url);
        link.href = effect.url;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        item.append(el("span", "effect-type", "openURL"), " ", link);
        list.prepend(item);
        toast(`Open URL: ${effect.url}`);
        log(`effect: openURL ${effect.url}`);
      } else if (effect.type === "navigate") {
        log(`effect: navigate to ${effect.screen}${effect.item ? ` (item ${effect.item})` : ""}`);
        location.assign(previewURL(effect.screen, page.session, effect.item || null));
      } else if (effect.type === "back") {
        log("effect: back");
        location.assign(backURL());
      } else {
        log(`effect: ${JSON.stringify(effect)}`);
      }
    }
  }

  /** Sends an event about `row` and applies its answer. */
  function sendEvent(kind, rowID, extra = {}) {
    return enqueue(async () => {
      const copy = page.copy;
      if (!copy) return;
      const sent = { definition: copy.definition, revision: copy.revision };
      const body = { row: rowID, revision: sent.revision, definition: sent.definition, eventId: `preview-${randomID()}`, ...extra };
      // The answer starts from what the user sees: the copy shows the values sent, and a
      // dragged row where it was dropped.
      const shown = kind === "edit" ? { [rowID]: extra.value } : extra.values || {};
      const previous = showValues(copy, shown);
      if (kind === "move") moveInCopy(copy, rowID, extra.to);
      const detail = "isOn" in extra ? ` → ${extra.isOn ? "on" : "off"}` : kind === "move" ? ` → [${extra.to.section}, ${extra.to.row}]` : kind === "action" ? ` ${extra.action}` : "";
      log(`${kind} ${rowID}${detail}`);
      let result;
      try {
        result = await request("POST", screenPath(`/${kind}`), { body, session: page.session });
      } catch (error) {
        if (error instanceof Problem && error.status === 409) {
          log(`${error.slug}: ${error.message}`, "error");
          await refetch(error.slug);
          toast("The screen was out of date and was fetched again; try again.");
        } else {
          toast(error.message, "error");
          log(`error: ${error.message}`, "error");
          showValues(copy, previous);
          if (kind === "move") {
            await refetch("the move was refused"); // Puts the row back where the server has it.
            return;
          }
          draw(page.copy); // Puts back a switch the user flipped.
        }
        return;
      }
      // Say where the page goes before the answer counts as applied, so whoever waits on
      // body[data-applied] knows a navigation follows.
      const navigation = (result.effects || []).find((effect) => effect.type === "navigate" || effect.type === "back");
      if (navigation) document.body.dataset.navigating = navigation.screen || "back";
      const now = page.copy;
      if (now.definition === sent.definition && now.revision === sent.revision) {
        try {
          applyResult(result, `answer to ${kind} ${rowID}`);
        } catch (error) {
          if (!(error instanceof Mismatch)) throw error;
          log(`answer does not fit: ${error.message}`, "error");
          await refetch("the answer's change set did not fit");
        }
      } else if (result.definition === now.definition && result.toRevision <= now.revision) {
        showChanges(result.changes, `answer to ${kind} ${rowID}, ${result.fromRevision} → ${result.toRevision} (the stream brought it first)`);
      } else {
        await refetch("the copy changed while the event was sent");
      }
      showEffects(result.effects);
    });
  }

  /** Moves a row within its section of a copy, as the user dropped it. */
  function moveInCopy(copy, rowID, to) {
    for (const section of copy.sections) {
      const index = section.rows.findIndex((row) => row.id === rowID);
      if (index < 0) continue;
      const [row] = section.rows.splice(index, 1);
      section.rows.splice(Math.min(to.row, section.rows.length), 0, row);
      return;
    }
  }

  /**
   * Sets input rows' value fields in a copy (not a secure row's, whose copy holds `""`);
   * returns the values they had, to put back.
   */
  function showValues(copy, values) {
    const previous = {};
    for (const section of copy.sections) {
      for (const row of section.rows) {
        if (!(row.id in values) || !INPUT_KINDS.has(row.kind) || row.secure) continue;
        const field = VALUE_FIELD[row.kind];
        previous[row.id] = row[field];
        row[field] = values[row.id];
      }
    }
    return previous;
  }

  /** Sends an edit now: the row's pending value, if any. */
  function flushEdit(rowID) {
    const pending = page.pendingEdits.get(rowID);
    if (!pending) return;
    clearTimeout(pending.timer);
    page.pendingEdits.delete(rowID);
    sendEvent("edit", rowID, { value: pending.value });
  }

  /** Queues an input row's value: typing is sent once it pauses, other controls at once. */
  function editInput(row, control, { debounce }) {
    const value = controlValue(row, control);
    if (row.secure) page.secureValues.set(row.id, value);
    const pending = page.pendingEdits.get(row.id);
    if (pending) clearTimeout(pending.timer);
    page.pendingEdits.set(row.id, { value, timer: setTimeout(() => flushEdit(row.id), debounce ? 400 : 0) });
  }

  function bindScreenEvents(main) {
    const rowOf = (target) => target.closest(".row");
    const siblingsOf = (row) => Array.from(row.parentElement.children).filter((node) => node.classList.contains("row"));
    /** Sends a move when the row left its place: its index among its section's rows now. */
    const dropped = (row, from) => {
      const to = siblingsOf(row).indexOf(row);
      if (to === from) return;
      const section = row.closest("section.section");
      const sectionIndex = Array.from(main.querySelectorAll(":scope > section.section")).indexOf(section);
      sendEvent("move", row.dataset.rowId, { to: { section: sectionIndex, row: to } });
    };
    main.addEventListener("change", (event) => {
      const input = event.target.closest(".row-switch");
      if (input) {
        sendEvent("switch", rowOf(input).dataset.rowId, { isOn: input.checked });
        return;
      }
      const control = event.target.closest(".row-control");
      if (control && control.tagName !== "DIV") editInput(rowOf(control)._model, control, { debounce: false });
    });
    main.addEventListener("input", (event) => {
      const control = event.target.closest(".row-control");
      if (!control || !["INPUT", "TEXTAREA"].includes(control.tagName)) return;
      if (control.type === "range" || control.type === "date" || control.type === "time" || control.type === "datetime-local") return;
      editInput(rowOf(control)._model, control, { debounce: true });
    });
    main.addEventListener("click", (event) => {
      const target = event.target;
      if (target.closest(".row-delete, .row-swipe-delete")) {
        const row = rowOf(target);
        row.classList.remove("swiped");
        sendEvent("deletion", row.dataset.rowId);
        return;
      }
      const swipeAction = target.closest(".row-swipe-action");
      if (swipeAction) {
        const row = rowOf(swipeAction);
        row.classList.remove("swiped");
        sendEvent("action", row.dataset.rowId, { action: swipeAction.dataset.action });
        return;
      }
      const more = target.closest(".row-actions");
      if (more) {
        const row = rowOf(more);
        for (const open of main.querySelectorAll(".row.swiped")) if (open !== row) open.classList.remove("swiped");
        row.classList.toggle("swiped");
        return;
      }
      if (target.closest(".row-grip")) return;
      if (target.closest(".row-switch")) return;
      const segment = target.closest(".row-segment");
      if (segment) {
        const row = rowOf(segment);
        for (const other of row.querySelectorAll(".row-segment")) other.setAttribute("aria-checked", String(other === segment));
        page.pendingEdits.set(row.dataset.rowId, { value: segment.dataset.option, timer: setTimeout(() => flushEdit(row.dataset.rowId), 0) });
        return;
      }
      if (target.closest(".row-control")) return;
      const row = rowOf(target);
      if (!row) return;
      if (row.classList.contains("swiped")) {
        row.classList.remove("swiped");
        return;
      }
      if (row.dataset.selectable !== "true" || row.dataset.enabled === "false") return;
      row.classList.add("selected");
      setTimeout(() => row.classList.remove("selected"), 350);
      // What the user typed goes first; secure values go with the selection, for a submit.
      for (const rowID of [...page.pendingEdits.keys()]) flushEdit(rowID);
      // A button is what submits a form, and a submit needs them (see docs/preview.md).
      const values = row.dataset.kind === "button" ? Object.fromEntries(page.secureValues) : {};
      sendEvent("selection", row.dataset.rowId, Object.keys(values).length ? { values } : {});
    });
    main.addEventListener("keydown", (event) => {
      const row = event.target.closest?.(".row[data-selectable='true']");
      if (row && event.target === row && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        row.click();
      }
    });
    // Drag a movable row by its grip: the row follows the pointer among its section's rows,
    // and the drop sends where it landed (the copy already shows it there).
    let drag = null;
    main.addEventListener("pointerdown", (event) => {
      const grip = event.target.closest(".row-grip");
      if (!grip) return;
      event.preventDefault();
      const row = rowOf(grip);
      drag = { row, from: siblingsOf(row).indexOf(row) };
      row.classList.add("dragging");
    });
    main.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const rows = siblingsOf(drag.row);
      const over = rows.find((other) => {
        const rect = other.getBoundingClientRect();
        return other !== drag.row && event.clientY >= rect.top && event.clientY < rect.bottom;
      });
      if (!over) return;
      const rect = over.getBoundingClientRect();
      if (event.clientY > rect.top + rect.height / 2) over.after(drag.row);
      else over.before(drag.row);
    });
    const endDrag = () => {
      if (!drag) return;
      const { row, from } = drag;
      drag = null;
      row.classList.remove("dragging");
      dropped(row, from);
    };
    main.addEventListener("pointerup", endDrag);
    main.addEventListener("pointercancel", endDrag);
    // The arrow keys move a focused grip's row one place.
    main.addEventListener("keydown", (event) => {
      const grip = event.target.closest?.(".row-grip");
      if (!grip || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
      event.preventDefault();
      const row = rowOf(grip);
      const from = siblingsOf(row).indexOf(row);
      const neighbour = event.key === "ArrowUp" ? row.previousElementSibling : row.nextElementSibling;
      if (!neighbour || !neighbour.classList.contains("row")) return;
      if (event.key === "ArrowUp") neighbour.before(row);
      else neighbour.after(row);
      dropped(row, from);
      row.querySelector(".row-grip")?.focus();
    });
    // Swipe left on a row with swipe actions or Delete to reveal them, as on iOS.
    let swipe = null;
    main.addEventListener("pointerdown", (event) => {
      if (drag) return;
      const row = event.target.closest(".row[data-swipeable='true']");
      for (const open of main.querySelectorAll(".row.swiped")) if (open !== row) open.classList.remove("swiped");
      if (!row || event.target.closest("button, input")) return;
      swipe = { row, x: event.clientX, y: event.clientY, dx: 0, active: false };
    });
    main.addEventListener("pointermove", (event) => {
      if (!swipe) return;
      const dx = event.clientX - swipe.x;
      const dy = event.clientY - swipe.y;
      if (!swipe.active && Math.abs(dx) > 8 && Math.abs(dx) > Math.abs(dy)) {
        swipe.active = true;
        swipe.row.classList.add("swiping");
      }
      if (swipe.active) {
        const tray = parseFloat(swipe.row.style.getPropertyValue("--tray")) || 80;
        swipe.dx = Math.min(0, dx + (swipe.row.classList.contains("swiped") ? -tray : 0));
        swipe.row.style.setProperty("--swipe", `${Math.max(swipe.dx, -tray - 40)}px`);
      }
    });
    const endSwipe = () => {
      if (!swipe) return;
      const { row, dx, active } = swipe;
      swipe = null;
      if (!active) return;
      row.classList.remove("swiping");
      row.style.removeProperty("--swipe");
      row.classList.toggle("swiped", dx < -40);
      // The click that ends a drag is not a tap.
      const swallow = (event) => { event.stopPropagation(); event.preventDefault(); };
      row.addEventListener("click", swallow, { capture: true, once: true });
      setTimeout(() => row.removeEventListener("click", swallow, { capture: true }), 50);
    };
    main.addEventListener("pointerup", endSwipe);
    main.addEventListener("pointercancel", endSwipe);
    // Pressed state, as a cell highlights under the finger.
    main.addEventListener("pointerdown", (event) => {
      const row = event.target.closest(".row[data-selectable='true']");
      if (row && !event.target.closest("button, input")) row.classList.add("pressed");
    });
    const unpress = () => { for (const row of main.querySelectorAll(".row.pressed")) row.classList.remove("pressed"); };
    main.addEventListener("pointerup", unpress);
    main.addEventListener("pointercancel", unpress);
    main.addEventListener("pointerleave", unpress);
  }

  async function screenPage(screenID) {
    document.body.dataset.page = "screen";
    $("#screen-list").remove();
    page.screenID = screenID;
    page.item = params.get("item");
    const main = $("#screen");
    main.dataset.screenId = screenID;
    setText('[data-field="screen"]', page.item ? `${screenID} (item ${page.item})` : screenID);
    const back = $("#back");
    back.hidden = false;
    back.href = page.item ? backURL() : listURL();
    back.prepend(svg(ICONS.back, "navbar-back-icon"));
    bindScreenEvents(main);
    const scroller = $("#scroller");
    scroller.addEventListener("scroll", () => {
      document.body.classList.toggle("scrolled", scroller.scrollTop > 36);
    }, { passive: true });
    catalogueListeners.push((catalogue) => {
      const known = (catalogue.screens || []).some((screen) => screen.id === screenID);
      const note = $("#banner");
      if (!known && page.copy) {
        banner(`The catalogue no longer has the screen "${screenID}"; the page shows the last copy.`,
          { label: "All screens", href: listURL() }, "missing-screen");
      } else if (known && note.dataset.reason === "missing-screen") {
        note.hidden = true;
        note.dataset.reason = "";
      }
    });
    pollCatalogue();

    let session = params.get("session");
    page.locale = session ? params.get("locale") : null;
    try {
      if (!session) {
        const created = await request("POST", "/v1/sessions");
        session = created.session;
        page.locale = (created.client && created.client.locale) || null;
        setText('[data-field="session-id"]', created.id);
        history.replaceState(null, "", previewURL(screenID, session));
        log(`new session ${created.id}`);
      }
    } catch (error) {
      banner(`Could not create a session: ${error.message}`);
      return;
    }
    page.session = session;
    setText('[data-field="session"]', session);
    const menu = $("#locale");
    menu.addEventListener("change", () => chooseLocale(menu.value));
    if (catalogueText) showCatalogue(JSON.parse(catalogueText));
    const another = $("#open-another");
    another.href = previewURL(screenID, session);
    another.hidden = false;
    const fresh = $("#new-session");
    fresh.href = previewURL(screenID);
    fresh.hidden = false;

    await enqueue(async () => {
      try {
        const screen = await request("GET", screenPath(), { session });
        acceptScreen(screen, "GET");
      } catch (error) {
        screenProblem(error);
      }
    });
    if (page.copy) openStream();
  }

  // ---------------------------------------------------------------- start

  // A page left for another one may be kept in the back/forward cache: it must hold no
  // stream then (Chrome keeps a cached page's connections, and six per host is all there is,
  // so a few navigations would stall the next page), and it catches up when it is shown again.
  window.addEventListener("pagehide", () => {
    paused = true;
    clearTimeout(catalogueTimer);
    if (page.stream) {
      page.stream.close();
      page.stream = null;
    }
  });
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    paused = false;
    delete document.body.dataset.navigating;
    pollCatalogue();
    if (page.copy) openStream();
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
})();
