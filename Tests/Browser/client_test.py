#!/usr/bin/env python3
"""Checks the embeddable web client, /client/tabula.js, in headless Chromium.

    python3 Tests/Browser/client_test.py --tabula .build/debug/tabula \
        --fixtures Fixtures/screens --output .build/test-output/client

A plain page of this test's own, served from a temporary directory on another loopback
port (another origin), imports tabula.js from `tabula serve --cors-origins ORIGIN` (no
--preview: the client is always served) and mounts several fixture screens in one session.
The test then:

1. checks the client's route: Cache-Control of a day, ETag and 304, CORS for the page's
   origin and none for another;
2. drives random events through the DOM the client draws, found by its contract only
   (data-* attributes, roles, native elements): taps, switches, deletions, edits of text
   fields and pickers, swipe actions and moves; a second window on the same session; and
   backend patches of the session's state (merge and JSON patches);
3. after each quiet point, compares every mounted screen of both windows with
   GET /v1/screens/{id} in the session: ids, kinds, revision, definition, texts, checked
   states, switches, values, delete buttons and selectable rows (a copy may keep an older
   revision only when `changes?since=` it is empty: no change of that screen was sent);
4. cuts the browser's network while an event is in flight: the client sends it again with
   the same eventId once the network is back, and the feed shows that eventId once (as it
   shows every eventId the pages sent once);
5. deletes the session: every view receives `gone` and closes;
6. holds applyChangeSet to the batch rules: a change set that is not one consistent batch
   (a row deleted twice, an update of a row not kept, a repeated id) throws Mismatch.

Exits 1 with the first difference, a screenshot and the server's last lines. Needs the PyPI
package `selenium` and Debian's `chromium` and `chromium-driver` (Scripts/browser-check
installs them).
"""

import argparse
import functools
import http.server
import json
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from preview_test import API, Failure, browser_errors, field_text, first_difference, make_driver, step, wait_for
from preview_test import BACKEND_KEY, Server as PreviewServer

# Each view holds one stream, and a browser keeps at most six connections to one HTTP/1.1
# origin: four views leave two for the events and GETs (see docs/clients.md).
SCREENS = ["settings", "inbox", "join-network", "sign-in"]
INPUT_KINDS = {"textField", "slider", "stepper", "picker", "segmented", "datePicker"}
VALUE_FIELD = {"textField": "text", "slider": "value", "stepper": "value", "picker": "selected", "segmented": "selected", "datePicker": "value"}
COMMON_ROW_KEYS = {"id", "kind", "selectable", "deletable", "movable", "enabled", "editable", "error", "height", "estimatedHeight", "accessory",
                   "leadingActions", "trailingActions", "accessibilityLabel", "accessibilityHint", "accessibilityValue"}
# Fields that name how a row looks or behaves rather than text it shows.
NOT_TEXT = {"style", "contentType", "placeholder", "mode", "min", "max", "selected", "text", "value"}

# The test's own page: mounts the screens named in its URL, in the session of its URL or a
# new one, and records what the views tell it (window.tabulaTest).
PAGE_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>tabula.js test page</title>
<link rel="icon" href="data:,">
<script type="module" src="page.js"></script>
</head>
<body>
<div id="mounts"></div>
</body>
</html>
"""

PAGE_JS = """
const params = new URLSearchParams(location.search);
const base = params.get("tabula");
const state = window.tabulaTest = { ready: false, session: params.get("session"), views: {}, updates: {}, sent: [], errors: [], gone: {}, closed: {}, effects: [], importError: null };
const link = document.createElement("link");
link.rel = "stylesheet";
link.href = `${base}/client/tabula.css`;
document.head.append(link);
let mount;
try {
  ({ mount } = await import(`${base}/client/tabula.js`));
} catch (error) {
  state.importError = String(error);
  throw error;
}

function watch(screen, view) {
  state.views[screen] = view;
  state.updates[screen] = 0;
  view.addEventListener("update", () => { state.updates[screen] += 1; });
  // The names of a selection's values, never the values: a secure one must not be kept.
  view.addEventListener("send", ({ detail }) => state.sent.push({
    screen, kind: detail.kind, row: detail.row, eventId: detail.body.eventId, to: detail.body.to || null,
    values: detail.body.values ? Object.keys(detail.body.values).sort() : null,
  }));
  view.addEventListener("error", ({ detail }) => state.errors.push({ screen, kind: detail.kind || null, row: detail.row || null, status: detail.error.status || null, message: String(detail.error.message) }));
  view.addEventListener("effect", ({ detail }) => state.effects.push({ screen, effect: detail.effect }));
  view.addEventListener("gone", ({ detail }) => { state.gone[screen] = detail.reason; });
  view.addEventListener("close", ({ detail }) => { state.closed[screen] = detail.reason; });
}

const screens = params.get("screens").split(",");
const element = (screen) => {
  const node = document.createElement("div");
  node.id = `mount-${screen}`;
  document.getElementById("mounts").append(node);
  return node;
};
// The first view creates the session (unless the URL names one); the others join it.
const first = mount(element(screens[0]), { baseURL: base, screen: screens[0], session: state.session || undefined });
watch(screens[0], first);
await first.ready;
state.session = first.session;
for (const screen of screens.slice(1)) watch(screen, mount(element(screen), { baseURL: base, screen, session: state.session }));
await Promise.all(Object.values(state.views).map((view) => view.ready));
state.ready = true;
"""

# Change sets that are not one consistent batch (a table view would refuse them), each of
# which applyChangeSet must refuse with Mismatch, and one that is, which it must apply.
CHANGE_SET_CASES = """
const done = arguments[arguments.length - 1];
const base = new URLSearchParams(location.search).get("tabula");
import(`${base}/client/tabula.js`).then(({ applyChangeSet, Mismatch }) => {
  const row = (id) => ({ id, kind: "basic", title: id });
  const p = (section, row) => ({ section, row });
  const screen = { id: "x", title: "X", revision: 0, sections: [{ id: "s0", rows: ["a", "b", "c"].map(row) }, { id: "s1", rows: [row("d")] }] };
  const empty = () => ({ sections: { deleted: [], inserted: [], moved: [], updated: [] }, rows: { deleted: [], inserted: [], moved: [], updated: [] } });
  const cases = {
    "a row deleted twice": (c) => { c.rows.deleted = [p(0, 0), p(0, 0)]; },
    "a row deleted and moved": (c) => { c.rows.deleted = [p(0, 0)]; c.rows.moved = [{ from: p(0, 0), to: p(0, 1) }]; },
    "a row moved twice": (c) => { c.rows.moved = [{ from: p(0, 0), to: p(0, 2) }, { from: p(0, 0), to: p(1, 1) }]; },
    "a row inserted with a kept row's id": (c) => { c.rows.inserted = [{ section: 0, row: 3, model: row("a") }]; },
    "an update giving a row another's id": (c) => { c.rows.updated = [{ from: p(0, 1), to: p(0, 1), model: row("a") }]; },
    "a deleted row updated": (c) => { c.rows.deleted = [p(0, 0)]; c.rows.updated = [{ from: p(0, 0), to: p(0, 0), model: row("a") }]; },
    "an update from nowhere": (c) => { c.rows.updated = [{ from: p(7, 9), to: p(0, 1), model: row("b") }]; },
    "a section deleted twice": (c) => { c.sections.deleted = [1, 1]; },
    "a section inserted with a kept section's id": (c) => { c.sections.inserted = [{ index: 2, section: { id: "s0", rows: [] } }]; },
  };
  const refused = {};
  for (const [name, make] of Object.entries(cases)) {
    const changes = empty();
    make(changes);
    try { applyChangeSet(screen, changes); refused[name] = false; } catch (error) { refused[name] = error instanceof Mismatch; }
  }
  const good = empty();
  good.rows.moved = [{ from: p(0, 0), to: p(0, 2) }];
  good.rows.updated = [{ from: p(0, 1), to: p(0, 0), model: { ...row("b"), title: "B" } }];
  let applied;
  try { applied = applyChangeSet(screen, good).sections[0].rows.map((r) => `${r.id}:${r.title}`); } catch (error) { applied = String(error); }
  done({ refused, applied });
}, (error) => done({ error: String(error) }));
"""

# Reads a mounted screen through the client's DOM contract alone.
READ_MOUNT = """
const root = document.getElementById(`mount-${arguments[0]}`);
if (!root || !root.dataset.revision) return null;
return {
  id: root.dataset.screenId, revision: Number(root.dataset.revision), definition: root.dataset.definition,
  sections: Array.from(root.querySelectorAll('[data-section-id]')).map((section) => ({
    id: section.dataset.sectionId,
    text: section.textContent,
    rows: Array.from(section.querySelectorAll('[data-row-id]')).map((row) => {
      const toggle = row.querySelector('input[type=checkbox][role=switch]');
      const control = row.querySelector('input:not([type=checkbox]):not([type=radio]), textarea, select');
      const radios = Array.from(row.querySelectorAll('input[type=radio]'));
      const chosen = radios.find((radio) => radio.checked);
      return {
        id: row.dataset.rowId, kind: row.dataset.kind, text: row.textContent,
        checked: row.getAttribute('aria-checked'),
        isOn: toggle ? toggle.checked : null,
        value: control ? (control.type === 'password' ? null : control.value) : chosen ? chosen.value : null,
        control: control ? (control.tagName.toLowerCase() + (control.tagName === 'INPUT' ? ':' + control.type : '')) : radios.length ? 'input:radio' : null,
        deletable: Boolean(row.querySelector('button[data-action=delete]')),
        // A selectable row is a button; a checkmark row a checkbox, read-only when it is not.
        selectable: row.tagName === 'BUTTON' || row.getAttribute('role') === 'button'
          || (row.getAttribute('role') === 'checkbox' && row.getAttribute('aria-readonly') !== 'true'),
        role: row.getAttribute('role'),
      };
    }),
  })),
};
"""

TEXT_INPUT_TYPES = {"password": "password", "newPassword": "password", "phone": "tel", "url": "url", "search": "search"}
DATE_TYPES = {"date": "date", "time": "time", "dateTime": "datetime-local"}


def expected_control(row):
    """The native element the contract asks for an input row."""
    kind = row["kind"]
    if kind == "textField":
        if row.get("multiline"):
            return "textarea"
        return "input:" + ("password" if row.get("secure") else TEXT_INPUT_TYPES.get(row.get("contentType"), "text"))
    return {"slider": "input:range", "stepper": "input:number", "picker": "select", "segmented": "input:radio",
            "datePicker": "input:" + DATE_TYPES.get(row.get("mode"), "date")}[kind]


def unchanged_since(api, session, screen_id, page):
    """Whether the screen is the same at the page's revision as now: the stream sends nothing
    for a commit that does not change a screen, so its copy keeps an older revision then."""
    status, answer = api.call("GET", f"/v1/screens/{screen_id}/changes?since={page['revision']}&definition={page['definition']}", session=session)
    if status != 200:
        return False
    changes = answer["changes"]
    return "title" not in changes and "style" not in changes and all(
        not changes[part][what] for part in ("sections", "rows") for what in ("deleted", "inserted", "moved", "updated"))


def compare(screen, page, what, api=None, session=None):
    """The first way the page's DOM differs from GET's screen, or None."""
    if page is None:
        return f"{what}: nothing is drawn"
    for key in ("id", "revision", "definition"):
        if page[key] == screen[key]:
            continue
        if key == "revision" and page["revision"] < screen["revision"] and page["definition"] == screen["definition"] \
                and api and unchanged_since(api, session, screen["id"], page):
            continue
        return f"{what}: data-{key} is {page[key]!r}, GET has {screen[key]!r}"
    found = first_difference([s["id"] for s in page["sections"]], [s["id"] for s in screen["sections"]], f"{what} sections")
    if found:
        return found
    for drawn, section in zip(page["sections"], screen["sections"]):
        for part, field in (("header", "title"), ("footer", "text")):
            model = section.get(part)
            if model and isinstance(model.get(field), str) and model[field] not in drawn["text"]:
                return f"{what}: section {section['id']} does not show its {part} {model[field]!r}"
        rows = [(row["id"], row["kind"]) for row in drawn["rows"]]
        found = first_difference(rows, [(row["id"], row["kind"]) for row in section["rows"]], f"{what} rows of {section['id']}")
        if found:
            return found
        for shown, row in zip(drawn["rows"], section["rows"]):
            where = f"{what}: row {row['id']} ({row['kind']})"
            for name, value in row.items():
                if name in COMMON_ROW_KEYS or name in NOT_TEXT or not isinstance(value, str) or value == "":
                    continue
                if value not in shown["text"]:
                    return f"{where} does not show its {name} {value!r} (shows {shown['text']!r})"
            if row["kind"] not in INPUT_KINDS and row["kind"] not in ("basic", "subtitle", "leftRightTitles", "titleSwitch", "checkmark", "empty", "button"):
                for name, value in row.items():
                    if name not in COMMON_ROW_KEYS and not isinstance(value, str) and field_text(value) not in shown["text"]:
                        return f"{where} does not show its field {name} = {value!r}"
            if row["kind"] == "checkmark" and shown["checked"] != ("true" if row["isChecked"] else "false"):
                return f"{where}: aria-checked is {shown['checked']!r}, GET has isChecked {row['isChecked']}"
            if row["kind"] == "checkmark" and shown["role"] != "checkbox":
                return f"{where}: a checkmark row is a checkbox, not {shown['role']!r}"
            if row["kind"] == "titleSwitch" and shown["isOn"] != row["isOn"]:
                return f"{where}: the switch is {shown['isOn']}, GET has isOn {row['isOn']}"
            if row["kind"] in INPUT_KINDS:
                if shown["control"] != expected_control(row):
                    return f"{where}: its control is {shown['control']!r}, the contract asks for {expected_control(row)!r}"
                value = row.get(VALUE_FIELD[row["kind"]])
                expected = None if row.get("secure") else ("" if value is None else field_text(value))
                if row["kind"] == "segmented" and value is None:
                    expected = None
                if shown["value"] != expected:
                    return f"{where}: shows the value {shown['value']!r}, GET has {expected!r}"
            if shown["deletable"] != bool(row.get("deletable")):
                return f"{where}: a delete button is {'there' if shown['deletable'] else 'missing'}, GET has deletable {row.get('deletable')}"
            if shown["selectable"] != bool(row.get("selectable")):
                return f"{where}: it is {'' if shown['selectable'] else 'not '}a button, GET has selectable {row.get('selectable')}"
    return None


class StaticPage:
    """The test's page, served from a directory on a loopback port of its own (another origin than the service)."""

    def __init__(self, directory):
        with open(os.path.join(directory, "index.html"), "w", encoding="utf-8") as file:
            file.write(PAGE_HTML)
        with open(os.path.join(directory, "page.js"), "w", encoding="utf-8") as file:
            file.write(PAGE_JS)

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def end_headers(self):
                self.send_header("Cache-Control", "no-store")
                super().end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=directory))
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Server(PreviewServer):
    """`tabula serve --cors-origins ORIGIN` (and the example backend) on free ports, stopped by their PIDs."""

    def __init__(self, binary, screens, log_path, origin):
        super().__init__(binary, screens, log_path)
        self.origin = origin

    def serve_options(self):
        return ["--cors-origins", self.origin]


def raw_get(url, headers):
    """GET with headers: (status, headers, body bytes), 304 included."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


class ClientTest:
    def __init__(self, args, server, page, api, driver):
        self.args, self.server, self.page, self.api, self.driver = args, server, page, api, driver
        self.random = random.Random(args.seed)
        self.session = None
        self.session_id = None
        self.windows = []
        self.events = 0
        self.patches = 0

    # ------------------------------------------------------------ the route

    def check_route(self):
        step("GET /client/tabula.js and tabula.css: a day's caching, ETag and 304, CORS for the page's origin only")
        for name, media in (("tabula.js", "text/javascript"), ("tabula.css", "text/css")):
            url = f"{self.server.url}/client/{name}"
            status, headers, body = raw_get(url, {"Origin": self.page.origin})
            if status != 200 or not headers.get("Content-Type", "").startswith(media) or not body:
                raise Failure(f"GET /client/{name} answered {status} {headers.get('Content-Type')} with {len(body)} bytes")
            age = re.search(r"max-age=(\d+)", headers.get("Cache-Control", ""))
            if not age or int(age.group(1)) < 86400:
                raise Failure(f"/client/{name}: Cache-Control is {headers.get('Cache-Control')!r}, not at least a day")
            tag = headers.get("ETag")
            if not tag:
                raise Failure(f"/client/{name} has no ETag")
            if headers.get("Access-Control-Allow-Origin") != self.page.origin:
                raise Failure(f"/client/{name}: Access-Control-Allow-Origin is {headers.get('Access-Control-Allow-Origin')!r} for {self.page.origin}")
            status, headers, body = raw_get(url, {"Origin": self.page.origin, "If-None-Match": tag})
            if status != 304 or body:
                raise Failure(f"/client/{name} with If-None-Match: {tag} answered {status}, not 304 without a body")
            status, headers, _ = raw_get(url, {"Origin": "http://127.0.0.1:1"})
            if status != 200 or headers.get("Access-Control-Allow-Origin"):
                raise Failure(f"/client/{name} from an origin not allowed: {status}, Access-Control-Allow-Origin {headers.get('Access-Control-Allow-Origin')!r}")
        status, _, body = raw_get(f"{self.server.url}/client/tabula.js", {})
        text = body.decode()
        if "export function mount" not in text or re.search(r"^\s*import\s", text, re.M):
            raise Failure("tabula.js does not export mount, or imports something")

    # ------------------------------------------------------------ change sets

    def check_inconsistent_change_sets(self):
        step("applyChangeSet refuses a change set that is not one consistent batch, and applies one that is")
        result = self.driver.execute_async_script(CHANGE_SET_CASES)
        if result.get("error"):
            raise Failure(f"the change set cases could not run: {result['error']}")
        accepted = [name for name, refused in result["refused"].items() if not refused]
        if accepted:
            raise Failure(f"applyChangeSet applied (or threw other than Mismatch for) {', '.join(accepted)}")
        if result["applied"] != ["b:B", "c:c", "a:a"]:
            raise Failure(f"a consistent change set applied as {result['applied']!r}, not b:B, c:c, a:a")

    # ------------------------------------------------------------ the pages

    def open_window(self, session=None):
        """Opens the test's page in the current driver's window: its session's token."""
        query = {"tabula": self.server.url, "screens": ",".join(SCREENS)}
        if session:
            query["session"] = session
        self.driver.get(f"{self.page.origin}/index.html?{urllib.parse.urlencode(query)}")
        wait_for(self.driver, lambda d: d.execute_script("return window.tabulaTest && (window.tabulaTest.ready || window.tabulaTest.importError)"),
                 15, "the test page to import tabula.js and mount its screens")
        failed = self.driver.execute_script("return window.tabulaTest.importError")
        if failed:
            raise Failure(f"the page could not import tabula.js across origins: {failed}")
        return self.driver.execute_script("return window.tabulaTest.session")

    def check_all(self, what, timeout=6):
        """Waits until every mounted screen of every window equals GET, else fails with the first difference."""
        deadline = time.monotonic() + timeout
        while True:
            difference = None
            for index, window in enumerate(self.windows):
                for screen_id in SCREENS:
                    screen = self.api.screen(screen_id, self.session)
                    page = window.execute_script(READ_MOUNT, screen_id)
                    difference = compare(screen, page, f"window {index + 1}, {screen_id}, {what}", self.api, self.session)
                    if difference:
                        break
                if difference:
                    break
            if difference is None:
                return
            if time.monotonic() > deadline:
                raise Failure(difference)
            time.sleep(0.15)

    def start(self):
        step(f"a page on {self.page.origin} imports tabula.js from {self.server.url} and mounts {', '.join(SCREENS)}")
        self.session = self.open_window()
        self.windows = [self.driver]
        status, created = self.api.call("GET", f"/v1/screens/{SCREENS[0]}", session=self.session)
        if status != 200:
            raise Failure(f"the page's session does not read its screen: {status} {created}")
        # The client lists the kinds it draws: a custom kind comes as its fallback.
        settings = self.api.screen("settings", self.session)
        kinds = {row["kind"] for section in settings["sections"] for row in section["rows"]}
        if "badge" in kinds:
            raise Failure("the client's session gets the custom kind badge: its client context does not list the kinds it draws")
        self.session_id = self.find_session_id()
        self.check_all("when first drawn")
        step("a second window (a browser of its own, with its own connections) on the same session")
        first = self.driver
        self.driver = make_driver(self.args.output)
        self.windows.append(self.driver)
        if self.open_window(self.session) != self.session:
            raise Failure("the second window did not join the session of its URL")
        self.driver = first
        self.check_all("with two windows")

    def find_session_id(self):
        """The session's public id, from the feed's `created` entry of the only session the test made."""
        status, feed = self.api.call("GET", "/v1/feed?limit=1000", headers={"Authorization": f"Bearer {BACKEND_KEY}"})
        if status != 200:
            raise Failure(f"GET /v1/feed answered {status}: {feed}")
        created = [entry["session"] for entry in feed["entries"] if entry["cause"] == "created"]
        if len(created) != 1:
            raise Failure(f"the feed shows {len(created)} sessions created, not the page's one")
        return created[0]

    # ------------------------------------------------------------ events

    def act(self):
        """One random user event in a random window; returns a description."""
        window = self.random.choice(self.windows)
        driver = self.driver = window
        screen_id = self.random.choice(SCREENS)
        targets = driver.execute_script("""
            const root = document.getElementById(`mount-${arguments[0]}`);
            const rows = (selector) => Array.from(root.querySelectorAll(selector)).map((node) => node.closest('[data-row-id]').dataset.rowId);
            return {
              tap: Array.from(root.querySelectorAll('[data-row-id][role=button], [data-row-id][role=checkbox]:not([aria-readonly=true])'))
                .filter((row) => row.dataset.enabled !== 'false' && row.dataset.kind !== 'button').map((row) => row.dataset.rowId),
              toggle: rows('input[type=checkbox][role=switch]:not([disabled])'),
              remove: rows('button.row-delete[data-action=delete]'),
              type: rows('input.row-control[type=text]:not([disabled]), input.row-control[type=search]:not([disabled]), textarea.row-control:not([disabled])'),
              pick: rows('select.row-control:not([disabled])'),
              choose: rows('.row-segments input[type=radio]:not([disabled]):not(:checked)'),
              swipe: rows('.row-swipe-tray button.row-swipe-action'),
              move: rows('[data-movable=true] .row-grip'),
            };""", screen_id)
        choices = [(kind, row) for kind, rows in targets.items() for row in rows]
        if not choices:
            return None
        kind, row_id = self.random.choice(choices)
        row = driver.find_element(By.CSS_SELECTOR, f'#mount-{screen_id} [data-row-id="{row_id}"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
        if kind == "tap":
            driver.execute_script("arguments[0].click()", row)
        elif kind == "toggle":
            driver.execute_script("arguments[0].click()", row.find_element(By.CSS_SELECTOR, "input[role=switch]"))
        elif kind == "remove":
            driver.execute_script("arguments[0].click()", row.find_element(By.CSS_SELECTOR, "button[data-action=delete]"))
        elif kind == "type":
            control = row.find_element(By.CSS_SELECTOR, ".row-control")
            control.click()
            control.send_keys(Keys.END)
            for _ in range(self.random.randint(1, 3)):
                control.send_keys(self.random.choice(["a", "b", "c", "@", ".", "x"]))
                time.sleep(self.random.choice([0.02, 0.1, 0.5]))
            if self.random.random() < 0.5:
                control.send_keys(Keys.BACKSPACE)
            # Leaving the field sends what waits at once.
            driver.execute_script("document.activeElement && document.activeElement.blur()")
        elif kind == "pick":
            options = driver.execute_script("return Array.from(arguments[0].querySelectorAll('option')).map((o) => o.value).filter(Boolean)",
                                            row.find_element(By.CSS_SELECTOR, "select"))
            choice = self.random.choice(options)
            driver.execute_script("const s = arguments[0]; s.value = arguments[1]; s.dispatchEvent(new Event('change', {bubbles: true}))",
                                  row.find_element(By.CSS_SELECTOR, "select"), choice)
            kind = f"pick {choice}"
        elif kind == "choose":
            radios = row.find_elements(By.CSS_SELECTOR, ".row-segments input[type=radio]:not(:checked)")
            radio = self.random.choice(radios)
            kind = f"choose {radio.get_attribute('value')}"
            driver.execute_script("arguments[0].click()", radio)
        elif kind == "swipe":
            buttons = row.find_elements(By.CSS_SELECTOR, ".row-swipe-tray button.row-swipe-action")
            action = self.random.choice(buttons)
            kind = f"swipe action {action.get_attribute('data-action')}"
            driver.execute_script("arguments[0].click()", action)
        elif kind == "move":
            grip = row.find_element(By.CSS_SELECTOR, ".row-grip")
            driver.execute_script("arguments[0].focus()", grip)
            grip.send_keys(self.random.choice([Keys.ARROW_UP, Keys.ARROW_DOWN]))
        self.events += 1
        return f"{kind} {row_id} on {screen_id} in window {self.windows.index(window) + 1}"

    def patch(self):
        """A backend patch of the session's state: a boolean flipped, or a list's first item removed."""
        status, record = self.api.call("GET", f"/v1/sessions/{self.session_id}", headers={"Authorization": f"Bearer {BACKEND_KEY}"})
        if status != 200:
            raise Failure(f"GET /v1/sessions/{self.session_id} answered {status}: {record}")
        state = record["state"]
        flags = [key for key, value in state.items() if isinstance(value, bool)]
        lists = [key for key, value in state.items() if isinstance(value, list) and value]
        headers = {"Authorization": f"Bearer {BACKEND_KEY}", "If-Match": f'"{record["revision"]}"'}
        if lists and (not flags or self.random.random() < 0.4):
            key = self.random.choice(lists)
            body, media, what = [{"op": "remove", "path": f"/{key}/0"}], "application/json-patch+json", f"removed {key}[0]"
        elif flags:
            key = self.random.choice(flags)
            body, media, what = {key: not state[key]}, "application/merge-patch+json", f"{key} = {not state[key]}"
        else:
            return None
        status, answer = self.api.call("PATCH", f"/v1/sessions/{self.session_id}/state", body, headers=headers, content_type=media)
        if status == 412:
            return None  # A page's event came between the read and the write: nothing written.
        if status != 200:
            raise Failure(f"PATCH /v1/sessions/{self.session_id}/state ({what}) answered {status}: {answer}")
        self.patches += 1
        return f"backend patch: {what}"

    def random_events(self, count):
        step(f"{count} random events and backend patches, both windows equal to GET after each")
        deadline = time.monotonic() + self.args.budget
        done = 0
        while done < count and time.monotonic() < deadline:
            what = self.patch() if self.random.random() < 0.2 else self.act()
            if not what:
                continue
            done += 1
            self.check_all(f"after {what}")
        print(f"   {self.events} events, {self.patches} patches, both windows equal to GET after each", flush=True)

    def check_edit_answer_keeps_typing(self):
        step("typing while an edit is in flight: the answer leaves the field's text, focus and caret alone")
        driver = self.driver = self.windows[0]
        control = driver.find_element(By.CSS_SELECTOR, '#mount-sign-in [data-row-id="email"] input')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", control)
        control.click()
        driver.execute_script("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", control)
        typed = "ann@example.com"
        for index, char in enumerate(typed):
            control.send_keys(char)
            # A pause longer than the client's edit delay sends "ann@"; the rest is typed
            # while that edit and its answer are on the way.
            time.sleep(0.6 if index == 3 else 0.03)
        # Wait for the answers, still focused: nothing typed may be lost or reordered.
        wait_for(driver, lambda d: d.execute_script(
            "const v = window.tabulaTest.views['sign-in']; return v.pendingEdits.size === 0 && v.sendingEdits.size === 0"), 10, "the edits to be answered")
        time.sleep(0.3)
        shown = driver.execute_script("return [arguments[0].value, document.activeElement === arguments[0], arguments[0].selectionStart]", control)
        if shown != [typed, True, len(typed)]:
            raise Failure(f"after the edits' answers the field shows {shown[0]!r} (focused {shown[1]}, caret {shown[2]}), not {typed!r} focused at its end")
        sent = driver.execute_script("return window.tabulaTest.sent")
        edits = [entry for entry in sent if entry["screen"] == "sign-in" and entry["kind"] == "edit" and entry["row"] == "email"]
        if len(edits) >= len(typed):
            raise Failure(f"{len(edits)} edits sent for {len(typed)} keystrokes: typing is not coalesced")
        if len(edits) < 2:
            raise Failure(f"{len(edits)} edits sent for typing with a pause in the middle, not one before the pause and one after")
        driver.execute_script("arguments[0].blur()", control)
        self.check_all("after typing into sign-in's e-mail field")

    def check_composition_waits(self):
        step("text an input method is still composing is not sent; it is once the composition ends")
        driver = self.driver = self.windows[0]
        control = driver.find_element(By.CSS_SELECTOR, '#mount-sign-in [data-row-id="email"] input')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", control)
        control.click()
        sent_before = len(driver.execute_script("return window.tabulaTest.sent"))
        driver.execute_script("""
            const control = arguments[0];
            control.value = 'かな';
            control.dispatchEvent(new InputEvent('input', { bubbles: true, isComposing: true, data: 'かな' }));""", control)
        time.sleep(1.0)  # Over twice the client's edit delay.
        sent = driver.execute_script("return window.tabulaTest.sent")[sent_before:]
        if sent:
            raise Failure(f"text still being composed was sent: {json.dumps(sent)}")
        driver.execute_script("arguments[0].dispatchEvent(new CompositionEvent('compositionend', { bubbles: true, data: 'かな' }))", control)
        wait_for(driver, lambda d: len(d.execute_script("return window.tabulaTest.sent")) > sent_before, 5, "the composed text's edit to be sent")
        edit = driver.execute_script("return window.tabulaTest.sent")[sent_before]
        if (edit["screen"], edit["kind"], edit["row"]) != ("sign-in", "edit", "email"):
            raise Failure(f"the end of the composition sent {json.dumps(edit)}, not an edit of email")
        wait_for(driver, lambda d: d.execute_script(
            "const v = window.tabulaTest.views['sign-in']; return v.pendingEdits.size === 0 && v.sendingEdits.size === 0"), 10, "the edit to be answered")
        driver.execute_script("arguments[0].blur()", control)
        self.check_all("after a composition in sign-in's e-mail field")

    def check_focus_kept_through_reordering(self):
        step("a change set that moves or deletes the rows and sections around a focused field leaves its focus alone")
        driver = self.driver = self.windows[0]
        control = driver.find_element(By.CSS_SELECTOR, '#mount-sign-in [data-row-id="password"] input')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", control)
        control.click()
        # Drawn straight from copies of the view's screen: the focused password row first in
        # its section, then a row and a section put in front of it, then both gone again
        # (each used to move the focused row's node, which blurs the field), then the screen
        # as the service has it.
        lost = driver.execute_script("""
            const view = window.tabulaTest.views['sign-in'];
            const control = arguments[0];
            const base = JSON.parse(JSON.stringify(view.copy));
            const credentials = (screen) => screen.sections.find((section) => section.id === 'credentials');
            const reversed = JSON.parse(JSON.stringify(base));
            credentials(reversed).rows.reverse();
            const crowded = JSON.parse(JSON.stringify(reversed));
            credentials(crowded).rows.unshift({ id: 'focus-test-row', kind: 'basic', title: 'In front' });
            crowded.sections.unshift({ id: 'focus-test-section', rows: [{ id: 'focus-test-other', kind: 'basic', title: 'Above' }] });
            const lost = [];
            for (const [name, screen] of [['reversed', reversed], ['crowded', crowded], ['reversed again', reversed], ['as served', base]]) {
              view.draw(screen, { animated: false });
              if (document.activeElement !== control) lost.push(name);
            }
            return lost;""", control)
        if lost:
            raise Failure(f"the focused password field lost its focus when drawn {', '.join(lost)}")
        driver.execute_script("arguments[0].blur()", control)
        self.check_all("after the focused field's rows moved around it")

    def check_segmented_control(self):
        step("a segmented control is native radio buttons: a click on a segment's label sends its option")
        driver = self.driver = self.windows[0]
        label = driver.find_element(By.CSS_SELECTOR, '#mount-join-network [data-row-id="band"] label.row-segment[data-option="5"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", label)
        sent_before = len(driver.execute_script("return window.tabulaTest.sent"))
        label.click()
        wait_for(driver, lambda d: len(d.execute_script("return window.tabulaTest.sent")) > sent_before, 5, "the segment's edit to be sent")
        sent = driver.execute_script("return window.tabulaTest.sent")[sent_before]
        if (sent["screen"], sent["kind"], sent["row"]) != ("join-network", "edit", "band"):
            raise Failure(f"a click on the 5 GHz segment sent {json.dumps(sent)}, not an edit of band")
        self.check_all("after choosing the 5 GHz band")
        band = next(r for s in self.api.screen("join-network", self.session)["sections"] for r in s["rows"] if r["id"] == "band")
        if band["selected"] != "5":
            raise Failure(f"after a click on the 5 GHz segment GET shows the band {band['selected']!r}")
        if not label.find_element(By.CSS_SELECTOR, "input[type=radio]").is_selected():
            raise Failure("the 5 GHz segment's radio button is not checked after its answer")

    def sent_since(self, count, kind, row, what):
        """The first event of `kind` on `row` the current window sent after its first `count`."""
        def found(driver):
            return next((e for e in driver.execute_script("return window.tabulaTest.sent")[count:] if e["kind"] == kind and e["row"] == row), None)
        return wait_for(self.driver, found, 10, what)

    def check_secure_value_forgotten(self):
        step("a password typed, its row hidden and shown again: the field is empty, and a button's selection does not carry what was typed")
        driver = self.driver = self.windows[0]
        root = "#mount-join-network"
        password = driver.find_element(By.CSS_SELECTOR, f'{root} [data-row-id="password"] input.row-control')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", password)
        sent_before = len(driver.execute_script("return window.tabulaTest.sent"))
        password.send_keys("hunter22")
        driver.execute_script("arguments[0].blur()", password)
        self.sent_since(sent_before, "edit", "password", "the password's edit to be sent")

        def pick_security(value):
            security = driver.find_element(By.CSS_SELECTOR, f'{root} [data-row-id="security"] select.row-control')
            Select(security).select_by_value(value)
            driver.execute_script("arguments[0].blur()", security)

        pick_security("none")
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, f'{root} [data-row-id="password"]'), 5, "the password row to leave")
        pick_security("wpa2")
        field = wait_for(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, f'{root} [data-row-id="password"] input.row-control')), None),
                         5, "the password row to come back")
        if field.get_attribute("value") != "":
            raise Failure(f"the password row came back showing {field.get_attribute('value')!r}, not an empty field")
        self.check_all("after the password row left and came back")
        sent_before = len(driver.execute_script("return window.tabulaTest.sent"))
        driver.execute_script("arguments[0].click()", driver.find_element(By.CSS_SELECTOR, f'{root} [data-row-id="join"]'))
        selection = self.sent_since(sent_before, "selection", "join", "the Join button's selection to be sent")
        if "password" in (selection["values"] or []):
            raise Failure(f"the Join button's selection carries the password typed before its row left: values {selection['values']}")
        self.check_all("after Join")

    def check_drop_placed_after_its_neighbour(self):
        step("a row dropped while an earlier event waits for its answer is sent as placed after the row it was dropped after")
        driver = self.driver = self.windows[0]
        root = '#mount-inbox section[data-section-id="favourites"]'

        def shown():
            return driver.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0] + ' .row[data-row-id]')).map((row) => row.dataset.rowId)", root)

        before = shown()
        if len(before) < 4:
            raise Failure(f"the inbox shows {len(before)} favourites, too few for the test: {before}")
        # The deletion's answer is held back: the drop is made while it waits.
        driver.execute_script("""
            const real = window.fetch;
            window.tabulaTest.realFetch = real;
            window.fetch = async (url, options) => {
              const response = await real(url, options);
              if (String(url).includes("/deletion")) await new Promise((resolve) => setTimeout(resolve, 1500));
              return response;
            };""")
        try:
            sent_before = len(driver.execute_script("return window.tabulaTest.sent"))
            first, second, third, last = before[0], before[1], before[2], before[3]
            delete = driver.find_element(By.CSS_SELECTOR, f'{root} [data-row-id="{first}"] button.row-delete')
            driver.execute_script("arguments[0].click()", delete)
            self.sent_since(sent_before, "deletion", first, "the deletion to be sent")
            grip = driver.find_element(By.CSS_SELECTOR, f'{root} [data-row-id="{last}"] .row-grip')
            driver.execute_script("arguments[0].focus()", grip)
            grip.send_keys(Keys.ARROW_UP)
            move = self.sent_since(sent_before, "move", last, "the move to be sent once the deletion is answered")
            expected = [second, last, third] + before[4:]
            wait_for(driver, lambda d: self.favourites() == expected, 10, f"GET to show the favourites {expected}")
            if move["to"] != {"section": 0, "row": 1}:
                raise Failure(f"the drop after {second} was sent as {move['to']}, not row 1 of the copy the deletion left")
        finally:
            driver.execute_script("window.fetch = window.tabulaTest.realFetch")
        self.check_all("after the drop made while the deletion waited")

    def favourites(self):
        screen = self.api.screen("inbox", self.session)
        section = next(s for s in screen["sections"] if s["id"] == "favourites")
        return [row["id"] for row in section["rows"]]

    def check_retry(self):
        step("the network cut while a switch event is sent: it is sent again with the same eventId, and applied once")
        driver = self.driver = self.windows[0]
        driver.execute_cdp_cmd("Network.enable", {})
        sent_before = len(driver.execute_script("return window.tabulaTest.sent"))
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        try:
            toggle = driver.find_element(By.CSS_SELECTOR, '#mount-settings [data-row-id="bluetooth"] input[role=switch]')
            driver.execute_script("arguments[0].click()", toggle)
            wait_for(driver, lambda d: len(d.execute_script("return window.tabulaTest.sent")) > sent_before, 5, "the switch event to be sent")
            time.sleep(1.5)  # Several attempts fail meanwhile.
        finally:
            driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.check_all("after the network came back", timeout=15)
        self.expect_once_in_feed(driver.execute_script("return window.tabulaTest.sent")[sent_before])

    def check_proxy_page(self):
        step("pages not the service's instead of a switch event's answer (a proxy's 502 and 401, a portal's 200): the event is sent again with the same eventId, and applied once")
        driver = self.driver = self.windows[0]
        # The first attempt reaches the service, which applies the event, and the next ones
        # its replayed answer; a proxy's or a portal's HTML page comes back instead of each.
        driver.execute_script("""
            const real = window.fetch;
            window.tabulaTest.realFetch = real;
            window.tabulaTest.proxyPages = 0;
            window.fetch = async (url, options) => {
              const response = await real(url, options);
              const pages = [[502, "502 Bad Gateway"], [200, "Sign in to the Wi-Fi"], [401, "Proxy sign-in"]];
              if (String(url).includes("/switch") && window.tabulaTest.proxyPages < pages.length) {
                const [status, title] = pages[window.tabulaTest.proxyPages];
                window.tabulaTest.proxyPages += 1;
                return new Response(`<html><body><h1>${title}</h1></body></html>`, { status, headers: { "Content-Type": "text/html" } });
              }
              return response;
            };""")
        sent_before = len(driver.execute_script("return window.tabulaTest.sent"))
        try:
            toggle = driver.find_element(By.CSS_SELECTOR, '#mount-settings [data-row-id="bluetooth"] input[role=switch]')
            driver.execute_script("arguments[0].click()", toggle)
            wait_for(driver, lambda d: d.execute_script("return window.tabulaTest.proxyPages") == 3, 15, "the three pages to be answered")
            self.check_all("after the proxy's pages", timeout=15)
        finally:
            driver.execute_script("window.fetch = window.tabulaTest.realFetch")
        self.expect_once_in_feed(driver.execute_script("return window.tabulaTest.sent")[sent_before])

    def expect_once_in_feed(self, sent):
        """Fails unless the feed shows the event's eventId exactly once: sent again, applied once."""
        count = sum(1 for entry in self.feed_events() if entry["event"].get("eventId") == sent["eventId"])
        if count != 1:
            raise Failure(f"the feed shows the switch's eventId {sent['eventId']} {count} times, not once")

    def feed_events(self):
        status, feed = self.api.call("GET", "/v1/feed?limit=1000", headers={"Authorization": f"Bearer {BACKEND_KEY}"})
        if status != 200:
            raise Failure(f"GET /v1/feed answered {status}: {feed}")
        return [entry for entry in feed["entries"] if entry["cause"] == "event" and entry.get("event")]

    def check_each_event_once(self):
        step("every eventId the pages sent is in the feed at most once")
        seen = {}
        for entry in self.feed_events():
            event_id = entry["event"].get("eventId")
            if event_id:
                seen[event_id] = seen.get(event_id, 0) + 1
        twice = {event_id: count for event_id, count in seen.items() if count > 1}
        if twice:
            raise Failure(f"events applied more than once: {twice}")
        sent = []
        for window in self.windows:
            sent += window.execute_script("return window.tabulaTest.sent")
        ids = [entry["eventId"] for entry in sent]
        if len(ids) != len(set(ids)):
            raise Failure("two events were sent with the same eventId")
        print(f"   {len(ids)} events sent, {len(seen)} in the feed (the others changed nothing), none twice", flush=True)

    def check_gone(self):
        step("the session deleted: every view gets `gone` and closes")
        status, answer = self.api.call("DELETE", f"/v1/sessions/{self.session_id}", headers={"Authorization": f"Bearer {BACKEND_KEY}"})
        if status != 204:
            raise Failure(f"DELETE /v1/sessions/{self.session_id} answered {status}: {answer}")
        for index, window in enumerate(self.windows):
            closed = wait_for(window, lambda d: d.execute_script(
                "const t = window.tabulaTest; return Object.keys(t.closed).length === arguments[0] ? t.closed : null", len(SCREENS)),
                10, f"every view of window {index + 1} to close")
            if set(closed.values()) != {"session-ended"}:
                raise Failure(f"window {index + 1}: the views closed with {closed}, not session-ended")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tabula", default=".build/debug/tabula", help="the tabula binary")
    parser.add_argument("--fixtures", default="Fixtures/screens", help="the screens to copy and serve")
    parser.add_argument("--output", default=".build/test-output/client", help="where logs and a failure's screenshot go")
    parser.add_argument("--seed", type=int, default=55, help="the seed of the random events")
    parser.add_argument("--events", type=int, default=60, help="how many random events and patches")
    parser.add_argument("--budget", type=float, default=90, help="the most seconds the random events may take")
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    for stale in ("failure.png", "server.log"):
        if os.path.exists(os.path.join(args.output, stale)):
            os.remove(os.path.join(args.output, stale))

    temporary = tempfile.mkdtemp(prefix="tabula-client-test-")
    server = page = driver = test = None
    try:
        screens_dir = os.path.join(temporary, "screens")
        shutil.copytree(args.fixtures, screens_dir)
        strings = os.path.join(os.path.dirname(os.path.abspath(args.fixtures)), "strings")
        if os.path.isdir(strings):
            shutil.copytree(strings, os.path.join(temporary, "strings"))
        page_dir = os.path.join(temporary, "page")
        os.makedirs(page_dir)
        page = StaticPage(page_dir)
        server = Server(os.path.abspath(args.tabula), screens_dir, os.path.join(args.output, "server.log"), page.origin)
        server.start()
        print(f"service on {server.url}, page on {page.origin}", flush=True)
        api = API(server.url)
        driver = make_driver(args.output)
        test = ClientTest(args, server, page, api, driver)
        test.check_route()
        test.start()
        test.check_inconsistent_change_sets()
        test.check_edit_answer_keeps_typing()
        test.check_focus_kept_through_reordering()
        test.check_composition_waits()
        test.check_segmented_control()
        test.check_secure_value_forgotten()
        test.check_drop_placed_after_its_neighbour()
        test.random_events(args.events)
        test.check_retry()
        test.check_proxy_page()
        test.check_each_event_once()
        test.check_gone()
        for window in test.windows:
            errors = [message for message in browser_errors(window) if "net::ERR_INTERNET_DISCONNECTED" not in message]
            if errors:
                raise Failure("the page logged errors to the console:\n  " + "\n  ".join(errors))
        print(f"client: {len(SCREENS)} screens in two windows, {test.events} events, {test.patches} backend patches")
        print("1 passed, 0 failed")
        return 0
    except (Failure, WebDriverException) as failure:
        message = failure.msg if isinstance(failure, WebDriverException) else str(failure)
        print(f"FAIL: {message}", file=sys.stderr, flush=True)
        if driver:
            try:
                path = os.path.join(args.output, "failure.png")
                (test.driver if test else driver).save_screenshot(path)
                print(f"screenshot of the failure: {path}", file=sys.stderr)
                for index, window in enumerate(test.windows if test else [driver]):
                    for line in browser_errors(window):
                        print(f"window {index + 1} console: {line}", file=sys.stderr)
                    report = window.execute_script("return window.tabulaTest && {errors: tabulaTest.errors.slice(-5), sent: tabulaTest.sent.slice(-5)}")
                    print(f"window {index + 1}'s last events and errors: {json.dumps(report)}", file=sys.stderr)
            except WebDriverException:
                pass
        if server:
            print(f"the server's last lines:\n{server.tail()}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    finally:
        for window in (test.windows if test else [driver] if driver else []):
            window.quit()
        if server:
            server.stop()
        if page:
            page.stop()
        shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
