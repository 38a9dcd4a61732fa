// tabula.js: the Tabula web client. An ES module with no dependencies and no build step.
//
//   import { mount } from "https://tabula.example.com/client/tabula.js";
//   const view = mount(document.querySelector("#settings"), { baseURL: "https://tabula.example.com", screen: "settings" });
//   view.addEventListener("update", (event) => console.log(event.detail.screen.revision));
//
// It keeps a copy of one screen of one session, draws it as HTML (a DOM whose data-*
// attributes and elements are a contract: see docs/clients.md), sends what the
// user does as events, and brings the copy forward with the change sets of the answers and
// of the screen's stream, animated. The rules it follows are those any Tabula client must
// follow: name the copy (revision and definition) in every event and stream; give every
// event an eventId and retry it with the same id; fetch the screen again when a change set
// does not fit; and apply an edit's answer without touching what the user typed since.

const ANIMATION_MS = 250;
/** How long typing must pause before an edit is sent. */
const EDIT_DELAY_MS = 400;
const REQUEST_TIMEOUT_MS = 15000;
/** Retries of an event after a network failure: the first waits this long, each next twice as long, up to the cap. */
const RETRY_FIRST_MS = 250;
const RETRY_CAP_MS = 5000;
/** Attempts at a request the service answered 503 or 504: it said "not now", but not forever. */
const RETRY_STATUS_ATTEMPTS = 5;
/**
 * After a stream was refused (not merely dropped), the view reads the screen again after this
 * long, twice as long after each refusal in a row (a stream refused again, such as one past
 * the session's limit, or a proxy's page), up to the cap; less a random part, so that the
 * views of many pages do not come back together. A stream that opens starts it over.
 */
const STREAM_REOPEN_MS = 3000;
const STREAM_REOPEN_CAP_MS = 60000;

const INPUT_KINDS = new Set(["textField", "slider", "stepper", "picker", "segmented", "datePicker"]);
/** The kinds this client draws with their own elements; any other kind is drawn as a list of its fields. */
export const BUILT_IN_KINDS = Object.freeze([
  "basic", "subtitle", "leftRightTitles", "titleSwitch", "checkmark", "empty", "button", ...INPUT_KINDS,
]);
const BUILT_IN = new Set(BUILT_IN_KINDS);
/** A row's fields drawn around its content: when one changes, an input row is filled again rather than refreshed in place. */
const ROW_CHROME_KEYS = ["selectable", "deletable", "movable", "accessory", "leadingActions", "trailingActions", "height"];
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
const AUTOCOMPLETE = {
  name: "name", username: "username", email: "email", password: "current-password", newPassword: "new-password",
  oneTimeCode: "one-time-code", phone: "tel", url: "url",
};
const DATE_INPUT_TYPES = { date: "date", time: "time", dateTime: "datetime-local" };
const ICON_COLOURS = ["#007aff", "#34c759", "#ff9500", "#ff3b30", "#5856d6", "#af52de", "#ff2d55", "#5ac8fa", "#8e8e93"];
const ICONS = {
  chevron: '<svg viewBox="0 0 8 13" width="8" height="13"><path d="M1.5 1.5 6.5 6.5 1.5 11.5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  checkmark: '<svg viewBox="0 0 14 12" width="14" height="12"><path d="M1.5 6.6 5.2 10.2 12.5 1.6" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  info: '<svg viewBox="0 0 22 22" width="22" height="22"><circle cx="11" cy="11" r="9.9" fill="none" stroke="currentColor" stroke-width="1.5"/><circle cx="11" cy="6.6" r="1.3" fill="currentColor"/><path d="M9 9.6h2.6v6.2M8.9 15.8h4.4" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round"/></svg>',
};

// ---------------------------------------------------------------- HTTP

/** What every `type` of the service's problem documents starts with. */
const PROBLEM_TYPE_PREFIX = "urn:tabula:problem:";

/** An answer that is not 2xx: its status and problem document (`slug` is the problem type's last part). */
export class Problem extends Error {
  constructor(status, problem, retryAfter = null) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    /** Seconds the answer's `Retry-After` asks to wait (a 429 or 503), or NaN. */
    this.retryAfter = retryAfter === null ? NaN : Number(retryAfter);
  }

  get slug() {
    return String(this.problem.type || "").replace(PROBLEM_TYPE_PREFIX, "");
  }
}

/** A request that got no answer (the network failed, or it timed out): worth sending again. */
class NetworkFailure extends Error {}

/** Whether an error says to send the same request again later: no answer, or an answer that says "not now". */
function retryable(error) {
  if (error instanceof NetworkFailure) return true;
  // 503 store-unavailable / actions-busy and 504 action-timeout: docs/api.md asks for a
  // retry with the same eventId. 502 action-failed is the backend's refusal, and 503
  // actions-not-configured a setting: neither passes by waiting.
  if (!(error instanceof Problem)) return false;
  // A 429 with Retry-After (too-many-sessions, when the view creates its session) passes too.
  if (error.status === 429) return Number.isFinite(error.retryAfter) && error.retryAfter > 0;
  return (error.status === 503 && error.slug !== "actions-not-configured") || error.status === 504;
}

function randomID() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// ---------------------------------------------------------------- applying a change set

/** A change set that does not fit the copy it is applied to. */
export class Mismatch extends Error {}

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
 * docs/api.md#change-sets): remove deleted and moved-out rows (old paths), remove deleted
 * and moved-out sections (old indexes), insert new and moved sections (new indexes,
 * ascending), insert new and moved rows (new paths, ascending), then set updated content.
 * Returns a new screen (revision and definition unchanged); throws Mismatch when the change
 * set does not fit the screen, or is not one consistent batch (a row or section deleted or
 * moved twice, or both; an update of a row that is not kept; a result with repeated ids):
 * the view then fetches the screen rather than draw what the service does not have.
 */
export function applyChangeSet(screen, changes) {
  const sectionChanges = changes.sections || {};
  const rowChanges = changes.rows || {};
  const list = (value) => value || [];
  const old = screen.sections;
  const rowAt = (path) => (old[path.section] ? old[path.section].rows[path.row] : undefined);
  const slots = old.map((section) => ({ ...section, rows: section.rows.slice() }));

  // 1. Deleted and moved-out rows, by their old paths.
  const removed = new Map();
  // Each old row leaves once at most: false when it already left.
  const remove = (path) => {
    if (!removed.has(path.section)) removed.set(path.section, new Set());
    const rows = removed.get(path.section);
    if (rows.has(path.row)) return false;
    rows.add(path.row);
    return true;
  };
  for (const path of list(rowChanges.deleted)) {
    if (!rowAt(path)) throw new Mismatch(`deleted row ${path.section}.${path.row} is not in the screen`);
    if (!remove(path)) throw new Mismatch(`row ${path.section}.${path.row} is deleted twice`);
  }
  const movedRows = new Map();
  for (const move of list(rowChanges.moved)) {
    const row = rowAt(move.from);
    if (!row) throw new Mismatch(`moved row ${move.from.section}.${move.from.row} is not in the screen`);
    if (!remove(move.from)) throw new Mismatch(`moved row ${move.from.section}.${move.from.row} is also deleted or moved`);
    movedRows.set(`${move.from.section}.${move.from.row}`, row);
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
    if (!slots[move.from]) throw new Mismatch(`moved section ${move.from} is not in the screen, or is also deleted or moved`);
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

  // 5. Updated content at the new indexes: of a kept section or row, the one that was at
  //    `from` and is at `to` now (a row keeps its id).
  for (const update of list(sectionChanges.updated)) {
    if (!sections[update.to]) throw new Mismatch(`updated section ${update.to} is not in the new screen`);
    if (!old[update.from] || old[update.from].id !== sections[update.to].id) {
      throw new Mismatch(`updated section ${update.to} is not the kept section ${update.from}`);
    }
    setHeaderFooter(sections[update.to], "header", update.header);
    setHeaderFooter(sections[update.to], "footer", update.footer);
  }
  for (const update of list(rowChanges.updated)) {
    const section = sections[update.to.section];
    if (!section || update.to.row < 0 || update.to.row >= section.rows.length) {
      throw new Mismatch(`updated row ${update.to.section}.${update.to.row} is not in the new screen`);
    }
    const before = rowAt(update.from);
    if (!before || !update.model || before.id !== update.model.id || section.rows[update.to.row].id !== update.model.id) {
      throw new Mismatch(`updated row ${update.to.section}.${update.to.row} is not the kept row ${update.from.section}.${update.from.row}`);
    }
    section.rows[update.to.row] = update.model;
  }
  // Insertions may repeat an id the screen keeps: a screen that held each id once still does.
  const repeated = (all) => new Set(all).size !== all.length;
  const rowIDs = (of) => of.flatMap((section) => section.rows.map((row) => row.id));
  if (!repeated(old.map((section) => section.id)) && !repeated(rowIDs(old))) {
    if (repeated(sections.map((section) => section.id)) || repeated(rowIDs(sections))) {
      throw new Mismatch("the change set leaves a screen with a repeated section or row id");
    }
  }

  const result = { ...screen, sections };
  if (typeof changes.title === "string") result.title = changes.title;
  if ("style" in changes) {
    if (changes.style === null) delete result.style;
    else result.style = changes.style;
  }
  return result;
}

/** A deep copy of a screen, so that what the view hands out cannot change its copy. */
const clone = (value) => (value === null || value === undefined ? value : JSON.parse(JSON.stringify(value)));

// ---------------------------------------------------------------- drawing rows

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function icon(markup, className) {
  const span = el("span", className);
  span.setAttribute("aria-hidden", "true");
  span.innerHTML = markup; // Constant SVG markup of this file, never a screen's text.
  return span;
}

function button(className, text) {
  const node = el("button", className, text);
  node.type = "button";
  return node;
}

function formatValue(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * A row image: an SF Symbol name, drawn as an iOS Settings-like rounded square with its
 * first letter. The name itself is the image's text, as an `alt` is an `img`'s.
 */
function rowImage(name) {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)) >>> 0;
  const image = el("span", "row-image");
  image.dataset.image = name;
  image.title = name;
  image.style.setProperty("--icon-colour", ICON_COLOURS[hash % ICON_COLOURS.length]);
  const letter = el("span", "row-image-letter", name.replace(/[^a-z]/gi, "").charAt(0).toUpperCase() || "•");
  letter.setAttribute("aria-hidden", "true");
  image.append(letter, el("span", "row-image-name", name));
  return image;
}

function rowSwitch(row) {
  const input = document.createElement("input");
  input.type = "checkbox";
  input.className = "row-switch";
  input.setAttribute("role", "switch");
  input.checked = Boolean(row.isOn);
  input.disabled = row.enabled === false;
  input.setAttribute("aria-label", row.title || row.id);
  return input;
}

/**
 * Opens or closes a row's swipe tray. Its buttons are in the tab order only while it shows:
 * opened by ⋯ from the keyboard, Tab goes on to them.
 */
function setSwiped(row, open) {
  row.classList.toggle("swiped", open);
  for (const trayButton of row.querySelectorAll(":scope > .row-swipe-tray > button")) trayButton.tabIndex = open ? 0 : -1;
}

function setDisabled(control, disabled) {
  if (control.tagName !== "DIV") control.disabled = disabled;
  for (const segment of control.querySelectorAll("input")) segment.disabled = disabled;
}

/** Names each segmented control's radio buttons apart from every other's on the page. */
let segmentGroups = 0;

/**
 * An input row's control: the native element of its kind, `.row-control`, disabled unless
 * the row is editable. A secure field's copy is always empty: what the user typed lives in
 * the element (and in the view, for a submit), never in the copy.
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
    case "segmented": {
      // Native radio buttons, one per option, drawn as the segments of one control.
      control = el("div", "row-segments");
      control.setAttribute("role", "radiogroup");
      const group = `tabula-segments-${++segmentGroups}`;
      for (const option of row.options) {
        const radio = document.createElement("input");
        radio.type = "radio";
        radio.className = "row-segment-input";
        radio.name = group;
        radio.value = option.id;
        radio.checked = option.id === row.selected;
        const segment = el("label", "row-segment");
        segment.dataset.option = option.id;
        segment.append(radio, el("span", "row-segment-title", option.title));
        control.append(segment);
      }
      break;
    }
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

/** The value an input control shows, as an edit sends it. */
function controlValue(row, control) {
  switch (row.kind) {
    case "slider":
    case "stepper": return control.value === "" ? null : Number(control.value);
    case "picker":
    case "datePicker": return control.value === "" ? null : control.value;
    case "segmented": return control.querySelector("input[type=radio]:checked")?.value ?? null;
    default: return control.value;
  }
}

/** Makes an input control show a model's value (not for a secure field, whose copy is always ""). */
function showValue(control, row) {
  if (row.kind === "segmented") {
    for (const radio of control.querySelectorAll("input[type=radio]")) radio.checked = radio.value === row.selected;
    return;
  }
  const shown = row[VALUE_FIELD[row.kind]];
  const text = shown === null || shown === undefined ? "" : String(shown);
  if (control.value !== text) control.value = text;
}

function accessoryView(accessory) {
  switch (accessory) {
    case "disclosureIndicator": return icon(ICONS.chevron, "accessory accessory-chevron");
    case "detailButton": return icon(ICONS.info, "accessory accessory-detail");
    case "checkmark": return icon(ICONS.checkmark, "accessory accessory-checkmark row-checkmark");
    default: return null;
  }
}

/** A custom kind's (or header's) fields, each a name and its value. */
function fieldList(model, skip) {
  const fields = el("dl", "row-fields");
  for (const name of Object.keys(model).filter((key) => !skip.has(key)).sort()) {
    const field = el("div", "row-field");
    field.dataset.name = name;
    field.append(el("dt", "row-field-name", name), el("dd", "row-field-value", formatValue(model[name])));
    fields.append(field);
  }
  return fields;
}

/** What a row is called where no text of its own says it (the delete and grip buttons' labels). */
const rowName = (row) => row.accessibilityLabel || row.title || row.leftTitle || row.id;

/**
 * Puts `node` right after `previous` in `parent` (first, when `previous` is null). A node that
 * holds the focus stays where it is when it is in `parent` already: the nodes in front of it
 * go to the end instead, and each is put in its place when the caller's loop reaches it.
 * Moving the node itself would blur the field being typed in, and lose what is typed next.
 */
function placeAfter(parent, node, previous) {
  let reference = previous ? previous.nextSibling : parent.firstChild;
  if (node === reference) return;
  const focused = document.activeElement;
  if (node.parentNode === parent && focused && focused !== document.body && node.contains(focused)) {
    while (reference && reference !== node) {
      const next = reference.nextSibling;
      parent.append(reference);
      reference = next;
    }
    if (reference === node) return;
    // Not after `previous` after all: put in place, focus or not.
    reference = previous ? previous.nextSibling : parent.firstChild;
  }
  parent.insertBefore(node, reference);
}

/** Ids of the input rows' error elements, unique in the page. */
let errorIDs = 0;

/** Ties an input row's controls to its error element: described by it, and invalid while it shows one. */
function describeControls(row, errorID, error) {
  for (const control of row.querySelectorAll(".row-control, .row-segment-input")) {
    control.setAttribute("aria-describedby", errorID);
    if (error) control.setAttribute("aria-invalid", "true");
    else control.removeAttribute("aria-invalid");
  }
}

/** Fills a row element from its model: the row's attributes and a full rebuild of its content. */
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
  if (row.kind === "checkmark") {
    node.dataset.checked = String(Boolean(row.isChecked));
    node.setAttribute("aria-checked", String(Boolean(row.isChecked)));
  } else {
    delete node.dataset.checked;
    node.removeAttribute("aria-checked");
  }
  if (row.kind === "button") node.dataset.buttonStyle = row.style || "default";
  else delete node.dataset.buttonStyle;
  node.classList.toggle("row-custom", !BUILT_IN.has(row.kind));
  node.classList.toggle("row-input", INPUT_KINDS.has(row.kind));
  if (typeof row.height === "number") node.style.height = `${Math.max(0, row.height)}px`;
  else node.style.removeProperty("height");
  // A checkmark row is a checkbox (aria-checked is a checkbox's state, not a button's), one
  // the user cannot change when it is not selectable; any other selectable row is a button.
  if (row.kind === "checkmark") node.setAttribute("role", "checkbox");
  if (row.kind === "checkmark" && !row.selectable) node.setAttribute("aria-readonly", "true");
  else node.removeAttribute("aria-readonly");
  if (row.selectable) {
    if (row.kind !== "checkmark") node.setAttribute("role", "button");
    node.tabIndex = 0;
    if (row.enabled === false) node.setAttribute("aria-disabled", "true");
    else node.removeAttribute("aria-disabled");
  } else {
    if (row.kind !== "checkmark") node.removeAttribute("role");
    node.removeAttribute("tabindex");
    node.removeAttribute("aria-disabled");
  }

  const inner = el("div", "row-inner");
  if (row.movable) {
    const grip = button("row-grip");
    grip.title = "Drag to reorder (or use the arrow keys)";
    grip.setAttribute("aria-label", `Reorder ${rowName(row)}`);
    inner.append(grip);
  }
  if (row.deletable) {
    const remove = button("row-delete");
    remove.dataset.action = "delete";
    remove.title = "Delete";
    remove.setAttribute("aria-label", `Delete ${rowName(row)}`);
    inner.append(remove);
  }
  if (row.kind === "subtitle" && row.image) inner.append(rowImage(row.image));

  const main = el("div", "row-main");
  const text = el("div", "row-text");
  const trailing = el("div", "row-trailing");
  switch (row.kind) {
    case "basic":
    case "button":
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
      if (row.isChecked) trailing.append(icon(ICONS.checkmark, "row-checkmark"));
      break;
    case "empty":
      break;
    default:
      if (INPUT_KINDS.has(row.kind)) {
        text.append(el("span", "row-title", row.title || ""));
        trailing.append(inputControl(row));
      } else {
        text.append(fieldList(row, COMMON_ROW_KEYS));
        trailing.append(el("span", "row-kind-badge", row.kind));
      }
  }
  const accessory = accessoryView(row.accessory);
  if (accessory) trailing.append(accessory);
  if (swipeActions.length) {
    // What a swipe reveals, for a keyboard or a mouse without one.
    const more = button("row-actions", "⋯");
    more.title = "Actions";
    more.setAttribute("aria-label", `Actions for ${rowName(row)}`);
    trailing.append(more);
  }
  main.append(text, trailing);
  inner.append(main);
  if (INPUT_KINDS.has(row.kind)) {
    // Read with the control it describes; a new error is also announced once, by the
    // view's live region (this element is hidden while it has none, and a live region out
    // of the accessibility tree announces nothing when it appears).
    const error = el("div", "row-error", row.error || "");
    error.id = `tabula-error-${++errorIDs}`;
    error.hidden = !row.error;
    inner.append(error);
    describeControls(inner, error.id, row.error);
  }
  const children = [inner];
  if (trayButtons) {
    const tray = el("div", "row-swipe-tray");
    for (const action of swipeActions) {
      const actionButton = button("row-swipe-action", action.title);
      actionButton.dataset.action = action.id;
      actionButton.dataset.style = action.style || "normal";
      tray.append(actionButton);
    }
    if (row.deletable) {
      const remove = button("row-swipe-delete", "Delete");
      remove.dataset.action = "delete";
      tray.append(remove);
    }
    children.push(tray);
  }
  node.replaceChildren(...children);
  // Hidden behind the cell until a swipe: out of the tab order (a row filled again while
  // open keeps its tray open).
  setSwiped(node, Boolean(trayButtons) && node.classList.contains("swiped"));
  node._model = row;
  node._json = JSON.stringify(row);
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
    node.append(el("span", "row-kind-badge", model.kind), fieldList(model, new Set(["kind"])));
  }
  return node;
}

/** Sets a section's header and footer; says whether they changed (and were there before). */
function fillSectionChrome(node, section) {
  const headerJSON = JSON.stringify(section.header || null);
  const footerJSON = JSON.stringify(section.footer || null);
  if (node._header === headerJSON && node._footer === footerJSON) return false;
  const changed = node._header !== undefined;
  node._header = headerJSON;
  node._footer = footerJSON;
  node.querySelector(":scope > .section-header")?.remove();
  node.querySelector(":scope > .section-footer")?.remove();
  if (section.header) node.prepend(headerFooterView(section.header, "header"));
  if (section.footer) node.append(headerFooterView(section.footer, "footer"));
  node.classList.toggle("has-header", Boolean(section.header));
  node.classList.toggle("has-footer", Boolean(section.footer));
  return changed;
}

// ---------------------------------------------------------------- the view

/**
 * Mounts a screen into `element` and returns its view, an EventTarget (see TabulaView).
 *
 * Options: `baseURL` (the service, e.g. "https://tabula.example.com"; default the page's
 * origin), `screen` (its id), `session` (a token; a new session is created without one),
 * `item` (an item screen's item), `locale` (a BCP 47 tag for a new session; with a given
 * session, the view puts it in the session's client context), `kinds` (the row kinds to list
 * in the client context; default the built-in kinds this client draws; `null` lists none, and
 * the service then sends every kind, a custom one drawn as its fields), `apiKey` (for a
 * service run with --api-key), `title` (false: do not draw the screen's title), `ghostLayer`
 * (an element for removed rows to fade out in; default one of the view's own), `editDelay`
 * (ms typing must pause before an edit is sent).
 */
export function mount(element, options = {}) {
  return new TabulaView(element, options);
}

/**
 * One screen of one session in one element. Events it dispatches (all CustomEvents):
 * `session` (a session was created: {session, id, client}), `update` (after every change it
 * applied and every whole screen it took: {source, screen, changes, fromRevision, toRevision,
 * definition, effects, submit}), `effect` (one per effect of an answer, after its update:
 * {effect}), `send` (an event is sent: {kind, row, body}), `retry` ({kind, row, attempt,
 * error}), `error` (an event was refused, or a load failed: {error, kind, row}), `stream`
 * ({state}: connecting, connected, reconnecting, closed), `gone` ({reason}) and `close`
 * ({reason}: the view stopped and does nothing more).
 */
export class TabulaView extends EventTarget {
  constructor(element, options) {
    super();
    if (!(element instanceof Element)) throw new TypeError("mount needs an element to draw into");
    if (!options.screen) throw new TypeError("mount needs the id of a screen (options.screen)");
    // A view still live in the element stops: two would both draw into it, and both send.
    element.tabulaView?.close("replaced");
    this.element = element;
    // A view closed in this element before left it read-only (see close()); the element is
    // this view's now.
    element.inert = false;
    element.tabulaView = this;
    this.screenID = String(options.screen);
    this.item = options.item ? String(options.item) : null;
    this.base = String(options.baseURL || globalThis.location?.origin || "").replace(/\/+$/, "");
    this.apiKey = options.apiKey || null;
    this.kinds = options.kinds === undefined ? BUILT_IN_KINDS.slice() : options.kinds;
    this.locale = options.locale || null;
    this.session = options.session || null;
    this.sessionID = null;
    this.client = null;
    this.showTitle = options.title !== false;
    this.editDelay = options.editDelay ?? EDIT_DELAY_MS;
    this.closed = null;
    this.copy = null;
    this.stream = null;
    this.streamCopy = null;
    this.queue = Promise.resolve();
    this.reducedMotion = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)");
    this.sectionNodes = new Map();
    this.rowNodes = new Map();
    /** Edits not sent yet, by row id: {value, timer, queued}. Only the newest value of a row is kept. */
    this.pendingEdits = new Map();
    /** Refusals of the stream since it last opened: how long the next attempt waits. */
    this.streamRefusals = 0;
    /** Rows whose edit is in flight: their control keeps what it shows until the answer is in. */
    this.sendingEdits = new Set();
    /** What was typed into secure fields, by row id: sent with a button's selection (a submit), never kept in the copy. */
    this.secureValues = new Map();
    /**
     * What the user did whose events wait for their answers: switches flipped (by row: the
     * newest state, and how many events of the row wait) and rows dropped (each after the row
     * it was dropped after), in order. Every draw shows them, so that the answer to an earlier
     * event never takes them back (see showingUserChanges).
     */
    this.userSwitches = new Map();
    this.userMoves = [];
    /**
     * The secure rows whose values the service refused with a button's selection (its
     * actions submit no form that has them), by definition and button: not sent with it again.
     */
    this.refusedValues = new Map();
    this.listeners = new AbortController();
    this.timers = new Set();
    this.ownGhostLayer = !options.ghostLayer;
    this.ghostLayer = options.ghostLayer || null;

    element.classList.add("tabula");
    element.dataset.screenId = this.screenID;
    this.bindEvents();
    /** Resolves once the screen is first drawn (or the view closed before). */
    this.ready = this.enqueue(() => this.start());
  }

  /** The copy the view shows: the screen at its revision and definition (a copy of it). */
  get screen() {
    return clone(this.copy);
  }

  /** Stops everything: the stream, timers, pending retries and the DOM listeners. The DOM stays as it is. */
  close(reason = "closed") {
    if (this.closed) return;
    this.closed = reason;
    this.stream?.close();
    this.stream = null;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const pending of this.pendingEdits.values()) clearTimeout(pending.timer);
    this.pendingEdits.clear();
    this.listeners.abort();
    // Its last copy stays on the page, read-only (until a new view mounts in the element): a
    // control that still moved would show the user a change that no event carries. An element
    // another view took over is that view's to keep live.
    if (this.element.tabulaView === this) this.element.inert = true;
    if (this.ownGhostLayer) this.ghostLayer?.remove();
    this.dispatch("stream", { state: "closed" });
    this.dispatch("close", { reason });
  }

  /** Fetches the screen again and, when no stream is open, follows it again (after a `gone` of the screen, say). */
  refresh() {
    return this.enqueue(async () => {
      await this.refetch("asked to");
      if (this.copy && !this.stream && !this.closed) this.openStream();
    });
  }

  /**
   * Puts `locale` in the session's client context (with this view's kinds): every screen of
   * the session is then in that language, and the stream brings the change set.
   */
  async setLocale(locale) {
    return this.putLocale(locale, false);
  }

  /** `setLocale`, sent again after a network failure when `untilAnswered`, as loading is. */
  async putLocale(locale, untilAnswered) {
    const body = { locale };
    if (this.kinds) body.kinds = this.kinds;
    const options = { body, session: this.session };
    const answer = await (untilAnswered
      ? this.requestUntilAnswered("PUT", "/v1/session/client", options)
      : this.request("PUT", "/v1/session/client", options));
    this.locale = answer.client?.locale || locale;
    this.client = answer.client || this.client;
    return answer;
  }

  /** Sends every edit typed and not sent yet, now (they still go one at a time, in order). */
  flushEdits() {
    for (const rowID of [...this.pendingEdits.keys()]) this.flushEdit(rowID);
    return this.queue;
  }

  // ------------------------------------------------------------ plumbing

  /** Tells the app; a closed view says nothing more but that it closed. */
  dispatch(type, detail) {
    if (this.closed && type !== "close" && type !== "stream") return;
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  later(ms, task) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) task();
    }, ms);
    this.timers.add(timer);
    return timer;
  }

  /** Runs `task` after every task queued before it: answers, stream events and fetches change the copy one at a time. */
  enqueue(task) {
    this.queue = this.queue.then(() => (this.closed ? undefined : task())).catch((error) => {
      this.dispatch("error", { error });
    });
    return this.queue;
  }

  /** A path of the service (`/v1/...`) as a URL. */
  url(path) {
    return `${this.base}${path}`;
  }

  /** The API path of the view's screen (`suffix`: `/stream`, `/edit`, …), with `?item=` on an item screen. */
  screenPath(suffix = "") {
    const path = `/v1/screens/${encodeURIComponent(this.screenID)}${suffix}`;
    return this.item ? `${path}?item=${encodeURIComponent(this.item)}` : path;
  }

  /**
   * One request: its JSON answer, a Problem for a non-2xx answer, a NetworkFailure for none.
   * A page that is not the service's is no answer either: a refusal without a problem
   * document (a proxy's "502 Bad Gateway" or its 401), or a 2xx that is not JSON (a captive
   * portal's page, a redirect to it followed). The request may or may not have reached the
   * service, and the same body with the same eventId applies an event once.
   */
  async request(method, path, { body, session, timeout = REQUEST_TIMEOUT_MS } = {}) {
    const headers = { Accept: "application/json" };
    if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    if (session) headers["X-Session"] = session;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeout);
    let response;
    try {
      response = await fetch(this.url(path), {
        method, headers, cache: "no-store", signal: abort.signal,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new NetworkFailure(`${method} ${path}: ${error.name === "AbortError" ? "timed out" : error.message}`);
    } finally {
      clearTimeout(timer);
    }
    const text = await response.text().catch(() => "");
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
    // The service's own problem documents only: a gateway's (about:blank, its own URL)
    // says nothing of the session or the event, which may not have reached the service.
    const isServiceProblem = json && typeof json === "object" && typeof json.type === "string" && json.type.startsWith(PROBLEM_TYPE_PREFIX);
    if (!response.ok && !isServiceProblem) {
      throw new NetworkFailure(`${method} ${path}: HTTP ${response.status} without the service's problem document: not its answer`);
    }
    if (response.ok && text && json === null) {
      throw new NetworkFailure(`${method} ${path}: HTTP ${response.status} with an answer that is not JSON: not the service's answer`);
    }
    if (!response.ok) throw new Problem(response.status, json, response.headers.get("Retry-After"));
    return json;
  }

  /**
   * Sends one request until it gets an answer: after a network failure (or a 503/504 that
   * asks for it) the same request goes again, with the same body and so the same eventId,
   * waiting twice as long each time. Without an answer it gives up only when the view
   * closes (an event is never lost); after RETRY_STATUS_ATTEMPTS answers of 503 or 504, it
   * reports the last one.
   */
  async requestUntilAnswered(method, path, options, onRetry) {
    let wait = RETRY_FIRST_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.request(method, path, options);
      } catch (error) {
        if (!retryable(error) || this.closed) throw error;
        if (error instanceof Problem && attempt >= RETRY_STATUS_ATTEMPTS) throw error;
        onRetry?.(attempt, error);
        const retryAfter = error instanceof Problem ? error.retryAfter : NaN;
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : wait * (0.75 + Math.random() / 2));
        wait = Math.min(wait * 2, RETRY_CAP_MS);
        if (this.closed) throw error;
      }
    }
  }

  // ------------------------------------------------------------ loading and following

  async start() {
    try {
      if (!this.session) {
        const body = {};
        const client = {};
        if (this.locale) client.locale = this.locale;
        if (this.kinds) client.kinds = this.kinds;
        if (Object.keys(client).length) body.client = client;
        const created = await this.requestUntilAnswered("POST", "/v1/sessions",
          Object.keys(body).length ? { body } : {});
        this.session = created.session;
        this.sessionID = created.id;
        this.client = created.client || null;
        this.locale = created.client?.locale || this.locale;
        this.dispatch("session", { session: created.session, id: created.id, client: created.client });
      } else if (this.locale) {
        // Every step of loading is tried again after a network failure, this one too.
        await this.putLocale(this.locale, true);
      }
      const screen = await this.requestUntilAnswered("GET", this.screenPath(), { session: this.session });
      this.acceptScreen(screen, "load");
      this.openStream();
    } catch (error) {
      this.failed(error);
    }
  }

  /** A load or an event that failed for good: a session or item that is gone stops the view. */
  failed(error, event = {}) {
    this.dispatch("error", { error, ...event });
    if (!(error instanceof Problem)) return;
    if (error.status === 401) this.close(error.slug || "unauthorized");
    else if (error.slug === "unknown-item") this.close("item-removed");
  }

  /**
   * Takes a whole screen (the first GET, a refetch, or the stream's `screen` event), unless it
   * is older than the copy and not `replacingNewer` (the service said the copy is ahead of it:
   * `409 future-revision`, a store restored from a backup).
   */
  acceptScreen(screen, source, replacingNewer = false) {
    // An answer that arrives after close() is not drawn: the element may be another view's.
    if (this.closed) return;
    const copy = this.copy;
    if (!replacingNewer && copy && copy.definition === screen.definition && screen.revision < copy.revision) return; // Older than the copy.
    this.copy = screen;
    this.draw(screen, { animated: Boolean(copy) });
    this.dispatch("update", {
      source, screen: clone(screen), changes: null, fromRevision: copy ? copy.revision : null, toRevision: screen.revision,
      definition: screen.definition, effects: [], submit: null,
    });
  }

  /** Applies an answer's or a stream event's change set, which goes from the copy to `definition`/`toRevision`. */
  applyResult(result, source, event) {
    if (this.closed) return;
    const next = applyChangeSet(this.copy, result.changes);
    next.revision = result.toRevision;
    next.definition = result.definition;
    this.copy = next;
    this.draw(next);
    this.dispatch("update", {
      source, screen: clone(next), changes: result.changes, fromRevision: result.fromRevision, toRevision: result.toRevision,
      definition: result.definition, effects: result.effects || [], submit: result.submit || null, event,
    });
  }

  async refetch(reason) {
    try {
      const screen = await this.requestUntilAnswered("GET", this.screenPath(), { session: this.session });
      this.acceptScreen(screen, "refetch", reason === "future-revision");
    } catch (error) {
      error.reason = reason;
      this.failed(error);
    }
  }

  /** A stream's `changes` event: applied when it starts at the copy, ignored when the copy has it already, else the screen is fetched again. */
  acceptStreamChanges(result, from) {
    const copy = this.copy;
    if (!copy) return undefined;
    if (result.definition === copy.definition && result.toRevision <= copy.revision) return undefined; // An answer came first.
    if (from.definition === copy.definition && result.fromRevision === copy.revision) {
      try {
        this.applyResult(result, "stream");
        return undefined;
      } catch (error) {
        if (!(error instanceof Mismatch)) throw error;
      }
    }
    return this.refetch("the stream's change set does not fit the copy");
  }

  /**
   * Follows the screen's stream, naming the copy (`since`, `definition`). EventSource
   * reconnects by itself after a dropped connection, sending `Last-Event-ID` (the copy its
   * last event left), so the service resumes from there.
   */
  openStream() {
    if (this.closed) return;
    this.stream?.close();
    const copy = this.copy;
    const query = new URLSearchParams({ session: this.session, since: String(copy.revision), definition: copy.definition });
    if (this.apiKey) query.set("key", this.apiKey);
    if (this.item) query.set("item", this.item);
    const stream = new EventSource(this.url(`/v1/screens/${encodeURIComponent(this.screenID)}/stream?${query}`));
    this.stream = stream;
    this.streamCopy = { definition: copy.definition, revision: copy.revision };
    this.dispatch("stream", { state: "connecting" });
    // The copy a stream event starts from is the one its previous event (or the URL) named.
    const advance = (event) => {
      const from = this.streamCopy;
      const id = String(event.lastEventId || "");
      const colon = id.lastIndexOf(":");
      if (colon > 0) this.streamCopy = { definition: id.slice(0, colon), revision: Number(id.slice(colon + 1)) };
      return from;
    };
    stream.onopen = () => {
      this.streamRefusals = 0;
      this.dispatch("stream", { state: "connected" });
    };
    stream.onerror = () => {
      if (this.stream !== stream) return;
      this.dispatch("stream", { state: "reconnecting" });
      // Dropped, EventSource would connect again by itself at the stream's fixed `retry:`:
      // after a restart, every page at the same moment. It is closed, and opened again (from
      // the copy) after a wait that grows with each failure in a row, drawn at random.
      // Refused (an unknown session, too many streams, a restarted server), the screen is
      // read again first, whose answer says why, and followed again if it can be read.
      const refused = stream.readyState === EventSource.CLOSED;
      stream.close();
      const longest = Math.min(STREAM_REOPEN_CAP_MS, STREAM_REOPEN_MS * 2 ** Math.min(this.streamRefusals, 10));
      this.streamRefusals += 1;
      this.later(longest * (0.5 + Math.random() / 2), () => this.enqueue(async () => {
        if (this.stream !== stream) return;
        if (!refused) {
          this.openStream();
          return;
        }
        try {
          const screen = await this.requestUntilAnswered("GET", this.screenPath(), { session: this.session });
          this.acceptScreen(screen, "refetch");
          this.openStream();
        } catch (error) {
          // A session or item that is gone ends the view. Anything else (a store that is
          // restarting, a screen removed for now) is tried again, waiting longer each time.
          if (error instanceof Problem && (error.status === 401 || error.slug === "unknown-item")) {
            this.stream = null;
            this.dispatch("stream", { state: "closed" });
            this.failed(error);
            return;
          }
          this.dispatch("error", { error });
          stream.onerror();
        }
      }));
    };
    stream.addEventListener("screen", (event) => {
      advance(event);
      const screen = JSON.parse(event.data);
      this.enqueue(() => this.acceptScreen(screen, "stream"));
    });
    stream.addEventListener("changes", (event) => {
      const from = advance(event);
      const result = JSON.parse(event.data);
      this.enqueue(() => this.acceptStreamChanges(result, from));
    });
    stream.addEventListener("gone", (event) => {
      stream.close();
      if (this.stream === stream) this.stream = null;
      let reason = "";
      try { reason = JSON.parse(event.data || "{}")?.reason || ""; } catch (_) { reason = ""; }
      this.enqueue(() => {
        this.dispatch("stream", { state: "closed" });
        this.dispatch("gone", { reason });
        // A removed screen may come back (a definition file restored): the view keeps its
        // copy and `refresh()` follows it again. A session or item that is gone is final.
        if (reason !== "screen-removed") this.close(reason || "gone");
      });
    });
  }

  // ------------------------------------------------------------ events

  /**
   * Sends an event about a row and applies its answer. Events go one at a time, each from
   * the copy shown when it is sent; the body (and its eventId) is built once and sent again
   * unchanged after a network failure, so the service applies it once. `secureValues`: a
   * button's selection, which carries them (see secureValuesFor).
   */
  send(kind, rowID, extra = {}, { secureValues = false } = {}) {
    const { release, move } = this.holdUserChange(kind, rowID, extra);
    return this.enqueue(() => {
      // Worked out in the event's turn, once the events sent before it are answered: a row
      // they hid or disabled takes no value, and a dropped row goes where the user put it
      // among the rows the copy has now.
      let body = secureValues ? withValues(extra, this.secureValuesFor(rowID)) : extra;
      if (move) body = { ...body, to: this.placeAsDropped(move, extra.to) };
      return this.sendNow(kind, rowID, body, release);
    });
  }

  /**
   * Keeps what the user did showing until its event is answered: `release` lets it go. A
   * dropped row is remembered as `move`: the row it was dropped after, in its section.
   */
  holdUserChange(kind, rowID, extra) {
    if (kind === "switch") {
      const held = this.userSwitches.get(rowID) || { isOn: extra.isOn, count: 0 };
      held.isOn = extra.isOn;
      held.count += 1;
      this.userSwitches.set(rowID, held);
      return {
        release: () => {
          held.count -= 1;
          if (held.count === 0 && this.userSwitches.get(rowID) === held) this.userSwitches.delete(rowID);
        },
      };
    }
    if (kind === "move") {
      const node = this.rowNodes.get(rowID);
      let previous = node?.previousElementSibling;
      while (previous && !previous.classList.contains("row")) previous = previous.previousElementSibling;
      const move = { row: rowID, after: previous ? previous.dataset.rowId : null, section: node?.closest("section.section")?.dataset.sectionId };
      this.userMoves.push(move);
      return {
        move,
        release: () => {
          const index = this.userMoves.indexOf(move);
          if (index >= 0) this.userMoves.splice(index, 1);
        },
      };
    }
    return { release: () => {} };
  }

  /**
   * Where a dropped row goes in the copy as it is in the event's turn: after the row it was
   * dropped after (first when none), in its section. An answer or a stream event that came
   * between the drop and its turn may have changed the rows before it, so that the index
   * the drop had names another place. `to`, as dropped, when that row or section is gone.
   */
  placeAsDropped(move, to) {
    const sectionIndex = this.copy?.sections.findIndex((section) => section.id === move.section) ?? -1;
    if (sectionIndex < 0) return to;
    const others = this.copy.sections[sectionIndex].rows.filter((row) => row.id !== move.row);
    if (move.after === null) return { section: sectionIndex, row: 0 };
    const after = others.findIndex((row) => row.id === move.after);
    return after < 0 ? to : { section: sectionIndex, row: after + 1 };
  }

  /**
   * The screen as the user sees it: with the switches they flipped and the rows they dropped
   * whose events wait for their answers. An answer starts from what the user saw when they
   * acted, so it never holds what they did after: drawn as it is, it would flip a switch
   * back, or move a dropped row back to move it again with the next answer.
   */
  showingUserChanges(screen) {
    if (!this.userSwitches.size && !this.userMoves.length) return screen;
    const shown = clone(screen);
    for (const section of shown.sections) {
      for (const row of section.rows) {
        const held = this.userSwitches.get(row.id);
        if (held && row.kind === "titleSwitch") row.isOn = held.isOn;
      }
    }
    for (const move of this.userMoves) {
      const section = shown.sections.find((candidate) => candidate.rows.some((row) => row.id === move.row));
      if (!section) continue;
      const from = section.rows.findIndex((row) => row.id === move.row);
      const [row] = section.rows.splice(from, 1);
      const anchor = move.after === null ? -1 : section.rows.findIndex((candidate) => candidate.id === move.after);
      section.rows.splice(move.after !== null && anchor < 0 ? from : anchor + 1, 0, row); // Its anchor gone: it stays.
    }
    return shown;
  }

  /**
   * What a button's selection carries: a button is what submits a form, and a submit needs
   * the secure fields' values, which the copy never holds. They go for the secure rows the
   * user can type into now (shown and enabled; a value typed into a row that is gone is
   * forgotten). The wire model does not say which form a button submits: a row whose value
   * the service refuses with this button (see sendNow) is left out from then on, while the
   * definition stays the same.
   */
  secureValuesFor(rowID) {
    const refused = this.refusedValues.get(`${this.copy?.definition}\n${rowID}`);
    const values = {};
    for (const [id, value] of this.secureValues) {
      const row = this.findRow(id);
      if (!row || !row.secure) this.secureValues.delete(id);
      else if (row.enabled !== false && !refused?.has(id)) values[id] = value;
    }
    return values;
  }

  /**
   * The body of send(), run in its turn of the queue. `afterRefetch`: an edit sent again
   * from the screen a 409 made the view fetch.
   */
  async sendNow(kind, rowID, extra, release = () => {}, afterRefetch = false) {
    const copy = this.copy;
    if (!copy) return release();
    const sent = { definition: copy.definition, revision: copy.revision };
    const body = { row: rowID, revision: sent.revision, definition: sent.definition, eventId: `web-${randomID()}`, ...extra };
    // The answer starts from what the user sees: the copy shows the values sent, and a
    // dragged row where it was dropped.
    const shown = kind === "edit" ? { [rowID]: extra.value } : extra.values || {};
    const previous = showValues(copy, shown);
    if (kind === "move") moveInCopy(copy, rowID, extra.to);
    const event = { kind, row: rowID };
    this.dispatch("send", { ...event, body });
    let result;
    try {
      result = await this.requestUntilAnswered("POST", this.screenPath(`/${kind}`), { body, session: this.session },
        (attempt, error) => this.dispatch("retry", { ...event, attempt, error }));
    } catch (error) {
      release();
      if (this.closed) return;
      if (error instanceof Problem && error.status === 409) {
        // stale-revision, future-revision, unknown-definition: the copy is not one the
        // service can answer from; take the screen as it is now.
        this.dispatch("error", { error, ...event });
        await this.refetch(error.slug);
        // The control still shows what the user chose: the edit goes again, once, from the
        // screen as it is now, rather than leave a value on screen that nothing carries.
        if (kind === "edit" && !afterRefetch && this.copy && !this.closed) return this.sendNow(kind, rowID, extra, () => {}, true);
        if (kind !== "edit") this.redrawRow(rowID); // The event is not applied: a flipped switch goes back.
        return;
      }
      showValues(copy, previous);
      const refused = error instanceof Problem && error.status === 422 ? error.problem.row : undefined;
      if (kind === "selection" && extra.values && refused !== rowID && this.secureValues.has(refused) && refused in extra.values) {
        // A secure row's value the button does not take (its actions submit no form with
        // that row): the same selection again without it (nothing changed, so a new event
        // id), and never with this button again while the definition is the same.
        const key = `${sent.definition}\n${rowID}`;
        if (!this.refusedValues.has(key)) this.refusedValues.set(key, new Set());
        this.refusedValues.get(key).add(refused);
        const { [refused]: _, ...values } = extra.values;
        return this.sendNow(kind, rowID, withValues(extra, values));
      }
      if (kind === "move") {
        await this.refetch("the move was refused"); // Puts the row back where the service has it.
      } else if (kind !== "edit") {
        this.redrawRow(rowID); // Puts back a switch the user flipped.
      }
      this.failed(error, event);
      return;
    }
    release();
    const now = this.copy;
    if (now.definition === sent.definition && now.revision === sent.revision) {
      try {
        this.applyResult(result, "answer", event);
      } catch (error) {
        if (!(error instanceof Mismatch)) throw error;
        await this.refetch("the answer's change set does not fit the copy");
      }
    } else if (!(result.definition === now.definition && result.toRevision <= now.revision)) {
      await this.refetch("the copy changed while the event was sent");
    }
    for (const effect of result.effects || []) this.dispatch("effect", { effect, ...event });
  }

  /**
   * Draws a row again from the copy, whatever its node shows: a control the user changed
   * for an event the service did not apply shows what the copy holds again (the copy never
   * held the change, so a plain draw would find the row unchanged and leave it).
   */
  redrawRow(rowID) {
    const node = this.rowNodes.get(rowID);
    if (node) node._json = undefined;
    if (this.copy) this.draw(this.copy, { animated: false });
  }

  /** Sends a row's edit now: its newest value, if one waits. */
  flushEdit(rowID) {
    const pending = this.pendingEdits.get(rowID);
    if (!pending || pending.queued) return;
    clearTimeout(pending.timer);
    pending.queued = true;
    // The value is read when the edit's turn comes, not now: typing meanwhile replaces it,
    // so only the newest value of a row goes.
    this.enqueue(async () => {
      const latest = this.pendingEdits.get(rowID);
      if (latest !== pending) return;
      this.pendingEdits.delete(rowID);
      this.sendingEdits.add(rowID);
      try {
        await this.sendNow("edit", rowID, { value: pending.value });
      } finally {
        this.sendingEdits.delete(rowID);
      }
      this.syncControl(rowID);
    });
  }

  /** Keeps an input row's newest value; it is sent once typing pauses (`delay`), or at once. */
  editInput(row, value, delay) {
    if (row.secure) this.secureValues.set(row.id, value);
    const pending = this.pendingEdits.get(row.id);
    if (pending && !pending.queued) {
      pending.value = value;
      clearTimeout(pending.timer);
      pending.timer = setTimeout(() => this.flushEdit(row.id), delay);
      return;
    }
    if (pending) {
      pending.value = value; // Queued, not sent: it will send this value.
      return;
    }
    // Nothing to send when the control shows what the copy holds already (a `change` after
    // the typing was sent, say).
    const current = this.findRow(row.id);
    if (!row.secure && current && current[VALUE_FIELD[current.kind]] === value && !this.sendingEdits.has(row.id)) return;
    const entry = { value, queued: false, timer: 0 };
    entry.timer = setTimeout(() => this.flushEdit(row.id), delay);
    this.pendingEdits.set(row.id, entry);
  }

  /** Whether an input row's control shows what the user entered and the copy may not have yet. */
  isBeingEdited(rowID, control) {
    if (this.pendingEdits.has(rowID) || this.sendingEdits.has(rowID)) return true;
    // A field with the focus may be typed into at any moment; a segmented control's choice
    // is made by one click, sent at once: its focus says nothing of what the user does.
    return control.tagName !== "DIV" && control.contains(document.activeElement);
  }

  /** After its edits are in: a control the user left shows the copy's value (another window may have changed it). */
  syncControl(rowID) {
    const node = this.rowNodes.get(rowID);
    const control = node?.querySelector(".row-control");
    if (!node || !control || node._model.secure || this.isBeingEdited(rowID, control)) return;
    showValue(control, node._model);
  }

  findRow(rowID) {
    for (const section of this.copy?.sections || []) {
      const row = section.rows.find((candidate) => candidate.id === rowID);
      if (row) return row;
    }
    return null;
  }

  bindEvents() {
    const root = this.element;
    const options = { signal: this.listeners.signal };
    const on = (type, handler, extra = {}) => root.addEventListener(type, handler, { ...options, ...extra });
    const rowOf = (target) => target.closest(".row[data-row-id]");
    const siblingsOf = (row) => Array.from(row.parentElement.children).filter((node) => node.classList.contains("row"));
    /** Sends a move when the row left its place: its index among its section's rows now. */
    const dropped = (row, from) => {
      const to = siblingsOf(row).indexOf(row);
      if (to === from) return;
      const section = row.closest("section.section");
      const sectionIndex = Array.from(root.querySelectorAll(":scope > section.section")).indexOf(section);
      this.send("move", row.dataset.rowId, { to: { section: sectionIndex, row: to } });
    };
    on("change", (event) => {
      const input = event.target.closest(".row-switch");
      if (input) {
        this.send("switch", rowOf(input).dataset.rowId, { isOn: input.checked });
        return;
      }
      const control = event.target.closest(".row-control");
      // A segmented control is a group of radio buttons: the one chosen changes.
      if (control && (control.tagName !== "DIV" || event.target.type === "radio")) {
        const row = rowOf(control)._model;
        this.editInput(row, controlValue(row, control), 0);
      }
    });
    const typed = (event) => {
      const control = event.target.closest?.(".row-control");
      if (!control || !["INPUT", "TEXTAREA"].includes(control.tagName)) return;
      // A slider, a date or a time sends on `change`, once it is let go or chosen.
      if (["range", "date", "time", "datetime-local"].includes(control.type)) return;
      const row = rowOf(control)._model;
      this.editInput(row, controlValue(row, control), this.editDelay);
    };
    // Text an input method is still composing (a kana candidate not chosen yet) is not the
    // user's value: it is sent once the composition ends.
    on("input", (event) => {
      if (!event.isComposing) typed(event);
    });
    on("compositionend", typed);
    // A field the user leaves shows the copy again once nothing of it is on the way.
    on("focusout", (event) => {
      const control = event.target.closest?.(".row-control");
      const row = control && rowOf(control);
      if (row) setTimeout(() => this.syncControl(row.dataset.rowId), 0);
    });
    on("click", (event) => {
      const target = event.target;
      if (target.closest(".row-delete, .row-swipe-delete")) {
        const row = rowOf(target);
        setSwiped(row, false);
        this.send("deletion", row.dataset.rowId);
        return;
      }
      const swipeAction = target.closest(".row-swipe-action");
      if (swipeAction) {
        const row = rowOf(swipeAction);
        setSwiped(row, false);
        this.send("action", row.dataset.rowId, { action: swipeAction.dataset.action });
        return;
      }
      const more = target.closest(".row-actions");
      if (more) {
        const row = rowOf(more);
        for (const open of root.querySelectorAll(".row.swiped")) if (open !== row) setSwiped(open, false);
        setSwiped(row, !row.classList.contains("swiped"));
        return;
      }
      if (target.closest(".row-grip, .row-switch")) return;
      if (target.closest(".row-control")) return;
      const row = rowOf(target);
      if (!row) return;
      if (row.classList.contains("swiped")) {
        setSwiped(row, false);
        return;
      }
      if (row.dataset.selectable !== "true" || row.dataset.enabled === "false") return;
      row.classList.add("selected");
      setTimeout(() => row.classList.remove("selected"), 350);
      // What the user typed goes first.
      this.flushEdits();
      this.send("selection", row.dataset.rowId, {}, { secureValues: row.dataset.kind === "button" });
    });
    on("keydown", (event) => {
      const row = event.target.closest?.(".row[data-selectable='true']");
      if (row && event.target === row && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        row.click();
        return;
      }
      // The arrow keys move a focused grip's row one place.
      const grip = event.target.closest?.(".row-grip");
      if (!grip || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
      event.preventDefault();
      const gripRow = rowOf(grip);
      const from = siblingsOf(gripRow).indexOf(gripRow);
      const neighbour = event.key === "ArrowUp" ? gripRow.previousElementSibling : gripRow.nextElementSibling;
      if (!neighbour || !neighbour.classList.contains("row")) return;
      if (event.key === "ArrowUp") neighbour.before(gripRow);
      else neighbour.after(gripRow);
      dropped(gripRow, from);
      gripRow.querySelector(".row-grip")?.focus();
    });
    // Drag a movable row by its grip: the row follows the pointer among its section's rows,
    // and the drop sends where it landed (the copy already shows it there).
    let drag = null;
    // Swipe left on a row with swipe actions or Delete to reveal them, as on iOS.
    let swipe = null;
    // A drag or swipe follows the pointer out of the element: released outside it, it still
    // ends here, instead of dragging on at the next pointer move.
    const capture = (event) => {
      try { root.setPointerCapture(event.pointerId); } catch (_) { /* the pointer is gone already */ }
    };
    on("pointerdown", (event) => {
      const grip = event.target.closest(".row-grip");
      if (grip) {
        event.preventDefault();
        const row = rowOf(grip);
        drag = { row, from: siblingsOf(row).indexOf(row) };
        row.classList.add("dragging");
        capture(event);
        return;
      }
      const swipeable = event.target.closest(".row[data-swipeable='true']");
      for (const open of root.querySelectorAll(".row.swiped")) if (open !== swipeable) setSwiped(open, false);
      if (swipeable && !event.target.closest("button, input, select, textarea")) {
        swipe = { row: swipeable, x: event.clientX, y: event.clientY, dx: 0, active: false };
      }
      // Pressed state, as a cell highlights under the finger.
      const selectable = event.target.closest(".row[data-selectable='true']");
      if (selectable && !event.target.closest("button, input, select, textarea")) selectable.classList.add("pressed");
    });
    on("pointermove", (event) => {
      if (drag) {
        const over = siblingsOf(drag.row).find((other) => {
          const rect = other.getBoundingClientRect();
          return other !== drag.row && event.clientY >= rect.top && event.clientY < rect.bottom;
        });
        if (!over) return;
        const rect = over.getBoundingClientRect();
        if (event.clientY > rect.top + rect.height / 2) over.after(drag.row);
        else over.before(drag.row);
        return;
      }
      if (!swipe) return;
      const dx = event.clientX - swipe.x;
      const dy = event.clientY - swipe.y;
      if (!swipe.active && Math.abs(dx) > 8 && Math.abs(dx) > Math.abs(dy)) {
        swipe.active = true;
        swipe.row.classList.add("swiping");
        // Only once it is a swipe: a captured tap would be a click on the root, not the row.
        capture(event);
      }
      if (swipe.active) {
        const tray = parseFloat(swipe.row.style.getPropertyValue("--tray")) || 80;
        swipe.dx = Math.min(0, dx + (swipe.row.classList.contains("swiped") ? -tray : 0));
        swipe.row.style.setProperty("--swipe", `${Math.max(swipe.dx, -tray - 40)}px`);
      }
    });
    const end = () => {
      for (const row of root.querySelectorAll(".row.pressed")) row.classList.remove("pressed");
      if (drag) {
        const { row, from } = drag;
        drag = null;
        row.classList.remove("dragging");
        dropped(row, from);
      }
      if (swipe) {
        const { row, dx, active } = swipe;
        swipe = null;
        if (!active) return;
        row.classList.remove("swiping");
        row.style.removeProperty("--swipe");
        setSwiped(row, dx < -40);
        // The click that ends a swipe is not a tap.
        const swallow = (click) => { click.stopPropagation(); click.preventDefault(); };
        row.addEventListener("click", swallow, { capture: true, once: true });
        setTimeout(() => row.removeEventListener("click", swallow, { capture: true }), 50);
      }
    };
    on("pointerup", end);
    on("pointercancel", end);
    on("pointerleave", () => { for (const row of root.querySelectorAll(".row.pressed")) row.classList.remove("pressed"); });
  }

  // ------------------------------------------------------------ drawing the screen (keyed, animated)

  get motion() {
    return !this.reducedMotion?.matches;
  }

  animate(node, keyframes, options = {}) {
    if (!this.motion || typeof node.animate !== "function") return null;
    return node.animate(keyframes, { duration: ANIMATION_MS, easing: "cubic-bezier(0.25, 0.1, 0.25, 1)", ...options });
  }

  /** Where removed rows fade out: outside the root, so that queries of the root never find them. */
  ghosts() {
    if (!this.ghostLayer) {
      this.ghostLayer = el("div", "tabula-ghosts");
      Object.assign(this.ghostLayer.style, { position: "absolute", top: "0", left: "0", width: "0", height: "0", pointerEvents: "none" });
      document.body.append(this.ghostLayer);
    }
    this.ghostLayer.classList.add("tabula-ghosts");
    this.ghostLayer.setAttribute("aria-hidden", "true");
    this.ghostLayer.dataset.style = this.element.dataset.style || "plain";
    return this.ghostLayer;
  }

  /** A faded copy of a removed row or section, left where it was while it fades out. */
  ghost(node, rect, layer, layerRect) {
    if (!this.motion || !rect) return;
    const copy = node.cloneNode(true);
    copy.className = `ghost ${node.classList.contains("section") ? "ghost-section" : "ghost-row"}`;
    for (const child of copy.querySelectorAll("[data-row-id], [data-section-id]")) {
      delete child.dataset.rowId;
      delete child.dataset.sectionId;
    }
    for (const attribute of ["data-row-id", "data-section-id", "id", "role", "tabindex"]) copy.removeAttribute(attribute);
    // Ids are the live rows' (an error's, which a control names): none twice in the page.
    for (const child of copy.querySelectorAll("[id]")) child.removeAttribute("id");
    // A copy's radio buttons in the live group would uncheck the live control's.
    for (const radio of copy.querySelectorAll("input[type=radio]")) radio.removeAttribute("name");
    Object.assign(copy.style, {
      position: "absolute", top: `${rect.top - layerRect.top}px`, left: `${rect.left - layerRect.left}px`,
      width: `${rect.width}px`, height: `${rect.height}px`,
    });
    layer.append(copy);
    const animation = copy.animate([{ opacity: 1 }, { opacity: 0, transform: "scaleY(0.6)" }],
      { duration: ANIMATION_MS, easing: "ease-in", fill: "forwards" });
    animation.onfinish = () => copy.remove();
    setTimeout(() => copy.remove(), ANIMATION_MS + 200);
  }

  /**
   * Says `text` to assistive technologies, once: a polite live region of the view's own,
   * present from the first draw and seen by no one.
   */
  announce(text) {
    this.liveRegion().textContent = text;
  }

  /** The view's live region, made at its first draw: one made as it speaks would not be heard. */
  liveRegion() {
    if (!this.announcer) {
      this.announcer = el("div", "tabula-announcer");
      this.announcer.setAttribute("aria-live", "polite");
      this.element.append(this.announcer);
    }
    return this.announcer;
  }

  /** Brings an input row's element to a new model of the same kind in place; false when it must be rebuilt. */
  refreshInput(node, row) {
    const control = node.querySelector(".row-control");
    if (!control) return false;
    const old = node._model;
    const editing = this.isBeingEdited(row.id, control);
    const rebuild = JSON.stringify(old.options) !== JSON.stringify(row.options) || old.multiline !== row.multiline
      || old.contentType !== row.contentType || old.secure !== row.secure || old.mode !== row.mode;
    // A control under the user's fingers is never rebuilt: it keeps its focus and caret.
    if (rebuild && !editing) return false;
    node.querySelector(".row-title").textContent = row.title || "";
    node.dataset.enabled = String(row.enabled !== false);
    setDisabled(control, !row.editable);
    control.setAttribute("aria-label", row.title || row.id);
    // A limit the model no longer has is gone from the control too.
    for (const name of ["min", "max", "placeholder", "step"]) {
      if (!(name in control)) continue;
      if (row[name] === undefined || row[name] === null) control.removeAttribute(name);
      else control[name] = name === "step" ? (row.step > 0 ? String(row.step) : "any") : String(row[name]);
    }
    if (row.kind === "textField") {
      if (typeof row.maxLength === "number") control.maxLength = row.maxLength;
      else control.removeAttribute("maxlength");
    }
    // The answer starts from what the user sees: a control being edited keeps its value.
    if (!editing && !row.secure) showValue(control, row);
    const error = node.querySelector(".row-error");
    if (error.textContent !== (row.error || "")) {
      error.textContent = row.error || "";
      if (row.error) this.announce(row.error);
    }
    error.hidden = !row.error;
    describeControls(node, error.id, row.error);
    for (const name of ["aria-label", "aria-description"]) node.removeAttribute(name);
    const spoken = [row.accessibilityLabel, row.accessibilityValue].filter((text) => text !== undefined && text !== "");
    if (spoken.length) node.setAttribute("aria-label", spoken.join(", "));
    if (row.accessibilityHint !== undefined) node.setAttribute("aria-description", row.accessibilityHint);
    node._model = row;
    node._json = JSON.stringify(row);
    return true;
  }

  /**
   * Updates a row element. An input row keeps its control (and so its focus and caret); a
   * switch whose state alone changed keeps its element, so its knob slides; anything else is
   * filled again.
   */
  updateRow(node, row) {
    const old = node._model;
    const sameShape = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    if (INPUT_KINDS.has(row.kind) && old.kind === row.kind) {
      // The parts around the control (delete and grip buttons, swipe actions, accessory)
      // need a new fill, unless the user is in the control: it is never pulled away from them.
      const control = node.querySelector(".row-control");
      const around = ROW_CHROME_KEYS.every((key) => sameShape(old[key], row[key]));
      if ((around || (control && this.isBeingEdited(row.id, control))) && this.refreshInput(node, row)) return;
    }
    if (old.kind === "titleSwitch" && sameShape({ ...old, isOn: row.isOn }, row)) {
      const input = node.querySelector(".row-switch");
      if (input) {
        input.checked = Boolean(row.isOn);
        node._model = row;
        node._json = JSON.stringify(row);
        return;
      }
    }
    // A secure field filled again is empty: what was typed is forgotten with it.
    if (old.secure || row.secure) this.secureValues.delete(row.id);
    fillRow(node, row);
  }

  /**
   * Makes the DOM show `screen`, reusing the element of every section and row by id (never
   * by position), then animates: kept rows and sections slide from where they were (FLIP),
   * inserted ones fade in, removed ones fade out as ghosts, updated ones flash. The DOM
   * holds the final state as soon as this returns.
   */
  draw(screen, { animated = true } = {}) {
    if (this.closed) return;
    screen = this.showingUserChanges(screen);
    const root = this.element;
    const motion = animated && this.motion && root.isConnected;
    const before = new Map();
    if (motion) {
      for (const [id, node] of this.sectionNodes) {
        before.set(`s:${id}`, node.getBoundingClientRect());
        before.set(`b:${id}`, node.querySelector(":scope > .section-rows").getBoundingClientRect());
        const header = node.querySelector(":scope > .section-header");
        const footer = node.querySelector(":scope > .section-footer");
        if (header) before.set(`h:${id}`, header.getBoundingClientRect());
        if (footer) before.set(`f:${id}`, footer.getBoundingClientRect());
      }
      for (const [id, node] of this.rowNodes) before.set(`r:${id}`, node.getBoundingClientRect());
    }

    this.liveRegion();
    root.dataset.screenId = screen.id;
    root.dataset.style = screen.style || "plain";
    root.dataset.revision = String(screen.revision);
    root.dataset.definition = screen.definition;
    if (screen.item !== undefined) root.dataset.item = screen.item;
    let title = root.querySelector(":scope > .tabula-title");
    if (this.showTitle) {
      if (!title) {
        title = el("h1", "tabula-title");
        root.prepend(title);
      }
      title.textContent = screen.title;
    } else {
      title?.remove();
      title = null;
    }
    const layer = motion ? this.ghosts() : null;
    const layerRect = layer?.getBoundingClientRect();

    // What leaves goes first: a row or section still in place while the others are put in
    // order would make each one after it move, and a moved node loses the focus (and the
    // user's next keystrokes) of the field inside it.
    const keptSections = new Set(screen.sections.map((section) => section.id));
    const keptRows = new Set(screen.sections.flatMap((section) => section.rows.map((row) => row.id)));
    for (const [id, node] of this.rowNodes) {
      if (keptRows.has(id)) continue;
      this.rowNodes.delete(id);
      this.secureValues.delete(id);
      // A row whose section left too leaves with it, in its section's ghost.
      if (!keptSections.has(node.closest(".section")?.dataset.sectionId)) continue;
      if (layer) this.ghost(node, before.get(`r:${id}`), layer, layerRect);
      node.remove();
    }
    // Sections that leave are taken out now and ghosted once the rows that stay have moved
    // out of them, so that a ghost holds only what leaves.
    const leftSections = [];
    for (const [id, node] of this.sectionNodes) {
      if (keptSections.has(id)) continue;
      node.remove();
      this.sectionNodes.delete(id);
      leftSections.push([id, node]);
    }

    const inserted = [];
    const updated = [];
    let previousSection = title;
    for (const section of screen.sections) {
      let node = this.sectionNodes.get(section.id);
      if (!node) {
        node = el("section", "section");
        node.dataset.sectionId = section.id;
        node.append(el("div", "section-rows"));
        this.sectionNodes.set(section.id, node);
        fillSectionChrome(node, section);
        inserted.push(node);
      } else if (fillSectionChrome(node, section)) {
        updated.push(...node.querySelectorAll(":scope > .section-header, :scope > .section-footer"));
      }
      placeAfter(root, node, previousSection);
      previousSection = node;

      const body = node.querySelector(":scope > .section-rows");
      let previousRow = null;
      for (const row of section.rows) {
        let rowNode = this.rowNodes.get(row.id);
        if (rowNode && rowNode._model.kind !== row.kind) {
          // Another kind is another cell: the old one leaves, a new one comes.
          if (layer) this.ghost(rowNode, before.get(`r:${row.id}`), layer, layerRect);
          before.delete(`r:${row.id}`);
          rowNode.remove();
          rowNode = null;
        }
        if (!rowNode) {
          rowNode = el("div", "row");
          fillRow(rowNode, row);
          // A new field is empty: what was typed into the row before is no longer shown,
          // and is not sent either.
          this.secureValues.delete(row.id);
          this.rowNodes.set(row.id, rowNode);
          if (!inserted.includes(node)) inserted.push(rowNode);
        } else if (rowNode._json !== JSON.stringify(row)) {
          this.updateRow(rowNode, row);
          updated.push(rowNode);
        }
        placeAfter(body, rowNode, previousRow);
        previousRow = rowNode;
      }
      node.classList.toggle("is-empty", section.rows.length === 0);
    }
    if (layer) for (const [id, node] of leftSections) this.ghost(node, before.get(`s:${id}`), layer, layerRect);
    // Anything else in the root (left by an app, or by an earlier mount) is not the screen.
    for (const child of Array.from(root.children)) {
      if (child === this.announcer) continue;
      if (child !== title && !(child.matches("section.section") && this.sectionNodes.get(child.dataset.sectionId) === child)) child.remove();
    }

    if (!motion) return;
    // Animations still running from the last draw end here: the "before" rects above were
    // taken where they had got to, and the new places are measured without them.
    for (const animation of root.getAnimations({ subtree: true })) {
      if (animation.constructor === Animation) animation.cancel(); // Not CSS transitions: a switch keeps sliding.
    }
    // FLIP: each kept element starts where it was and slides to where it is.
    const sectionDelta = new Map();
    for (const [id, node] of this.sectionNodes) {
      const old = before.get(`s:${id}`);
      if (!old) continue;
      const now = node.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      sectionDelta.set(id, { dx, dy });
      if (Math.abs(dx) > 0.5 || Math.abs(dy) > 0.5) {
        this.animate(node, [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }]);
      }
      // The block of cells grows or shrinks as its rows come and go; its header and footer slide.
      const rows = node.querySelector(":scope > .section-rows");
      const oldRows = before.get(`b:${id}`);
      const newRows = rows.getBoundingClientRect();
      if (Math.abs(oldRows.height - newRows.height) > 0.5) {
        this.animate(rows, [{ height: `${oldRows.height}px` }, { height: `${newRows.height}px` }]);
      }
      for (const [key, selector] of [[`h:${id}`, ":scope > .section-header"], [`f:${id}`, ":scope > .section-footer"]]) {
        const part = node.querySelector(selector);
        const was = before.get(key);
        if (!part || !was) continue;
        const partDy = was.top - part.getBoundingClientRect().top - dy;
        if (Math.abs(partDy) > 0.5) this.animate(part, [{ transform: `translateY(${partDy}px)` }, { transform: "none" }]);
      }
    }
    for (const [id, node] of this.rowNodes) {
      const old = before.get(`r:${id}`);
      if (!old) continue;
      const now = node.getBoundingClientRect();
      const parent = sectionDelta.get(node.closest(".section").dataset.sectionId) || { dx: 0, dy: 0 };
      const dx = old.left - now.left - parent.dx;
      const dy = old.top - now.top - parent.dy;
      if (Math.abs(dx) > 0.5 || Math.abs(dy) > 0.5) {
        this.animate(node, [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }]);
      }
    }
    for (const node of inserted) {
      this.animate(node, [{ opacity: 0, transform: "translateY(-8px)" }, { opacity: 1, transform: "none" }]);
    }
    for (const node of updated) {
      this.animate(node, [
        { boxShadow: "inset 0 0 0 100vmax var(--tabula-flash)" },
        { boxShadow: "inset 0 0 0 100vmax transparent" },
      ], { duration: 700, easing: "ease-out" });
    }
  }
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

/** An event's extra body members with `values`, or without the member when there are none. */
function withValues(extra, values) {
  const { values: _, ...rest } = extra;
  return Object.keys(values).length ? { ...rest, values } : rest;
}

/** Sets input rows' value fields in a copy (not a secure row's, whose copy holds ""); returns the values they had, to put back. */
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
