#!/usr/bin/env python3
"""Checks the preview page of `tabula serve --preview` in headless Chromium.

    python3 Tests/Browser/preview_test.py --tabula .build/debug/tabula \
        --fixtures Fixtures/screens --output .build/test-output/preview

It copies the fixtures to a temporary directory, serves them with
`tabula serve --preview --watch --store memory --port 0`, and drives the page with Selenium:

1. the list page lists the screens of GET /v1/screens;
2. every screen is drawn as GET /v1/screens/{id} answers it in the page's session;
3. random taps, switches and deletions (seeded) are applied from their answers, and the page
   still equals GET after each; navigate effects open the target screen, openURL ones are
   listed;
4. two windows on one session follow each other;
5. an event sent with plain HTTP, and a backend patch, reach the page through its stream;
6. a saved definition file shows up without a reload, and a broken one is listed under the
   catalogue problems while the screen stays;
7. screenshots of three screens (one per table style) in light and dark mode.

Exits 1 with a message on the first mismatch. Needs the PyPI package `selenium` and
Debian's `chromium` and `chromium-driver` (Scripts/browser-check installs them).
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import ElementClickInterceptedException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select

BACKEND_KEY = "preview-test-backend-key"
ACTIONS_SECRET = "preview-test-actions-secret"
COMMON_ROW_KEYS = {"id", "kind", "selectable", "deletable", "movable", "enabled", "editable", "error", "height", "estimatedHeight", "accessory",
                   "leadingActions", "trailingActions", "accessibilityLabel", "accessibilityHint", "accessibilityValue"}
INPUT_KINDS = {"textField", "slider", "stepper", "picker", "segmented", "datePicker"}
VALUE_FIELD = {"textField": "text", "slider": "value", "stepper": "value", "picker": "selected", "segmented": "selected", "datePicker": "value"}
EVENTS_PER_SCREEN = 30
SCREENSHOT_SCREENS = ["settings", "people", "users"]


class Failure(Exception):
    """A mismatch or a step that did not happen: the test fails with its message."""


def step(text):
    print(f"-- {text}", flush=True)


# ---------------------------------------------------------------------------- the server


class Server:
    """`tabula serve --preview --watch` and the example backend on free ports, stopped by their PIDs."""

    def __init__(self, binary, screens, log_path):
        self.binary = binary
        self.screens = screens
        self.log_path = log_path
        self.lines = []
        self.processes = []
        self.url = None

    def spawn(self, command, timeout, hint=""):
        """Starts `command`, logs its output, and returns the URL of its 'listening on' line."""
        print("$ " + " ".join(command), flush=True)
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
        self.processes.append(process)
        found = {}
        listening = threading.Event()

        def read():
            with open(self.log_path, "a", encoding="utf-8") as log:
                for line in process.stdout:
                    self.lines.append(line.rstrip("\n"))
                    log.write(line)
                    log.flush()
                    match = re.search(r"listening on (http://[^\s,]+)", line)
                    if match and "url" not in found:
                        found["url"] = match.group(1).rstrip("/")
                        listening.set()
            listening.set()

        threading.Thread(target=read, daemon=True).start()
        listening.wait(timeout)
        if "url" not in found:
            raise Failure(f"{command[1]} did not start (no 'listening on' line within {timeout} s); its output:\n"
                          + "\n".join(self.lines[-20:]) + hint)
        return found["url"]

    def start_backend(self, timeout):
        """`tabula example-backend`, which the sign-in screen's call asks."""
        return self.spawn([self.binary, "example-backend", "--port", "0", "--secret", ACTIONS_SECRET], timeout)

    def serve_options(self):
        """What `tabula serve` is given besides the store, port, screens, log level and backend."""
        return ["--preview", "--watch"]

    def start(self, timeout=20):
        backend = self.start_backend(timeout)
        self.url = self.spawn([
            self.binary, "serve", *self.serve_options(), "--store", "memory", "--port", "0", "--screens", self.screens,
            "--log-level", "info", "--backend-key", BACKEND_KEY, "--actions-url", backend, "--actions-secret", ACTIONS_SECRET,
        ], timeout, hint="\n(a binary without --preview or --watch fails here)")

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def tail(self, count=30):
        return "\n".join(self.lines[-count:])


class API:
    """Plain HTTP to the service, as a second client would talk to it."""

    def __init__(self, base):
        self.base = base

    def call(self, method, path, body=None, session=None, headers=None, content_type="application/json"):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", content_type)
        if session:
            request.add_header("X-Session", session)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read().decode()
                return response.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            try:
                return error.code, json.loads(text)
            except ValueError:
                return error.code, text

    def get(self, path, session=None):
        status, body = self.call("GET", path, session=session)
        if status != 200:
            raise Failure(f"GET {path} answered {status}: {body}")
        return body

    def screen(self, screen_id, session, item=None):
        query = f"?item={urllib.parse.quote(item)}" if item else ""
        return self.get(f"/v1/screens/{urllib.parse.quote(screen_id)}{query}", session)


# ---------------------------------------------------------------------------- the browser


def make_driver(output):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,900",
                     "--disable-gpu", "--no-first-run", "--disable-extensions", "--hide-scrollbars"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service("/usr/bin/chromedriver", log_output=os.path.join(output, "chromedriver.log"))
    return webdriver.Chrome(service=service, options=options)


# Two forms with a secure row each, and a button that submits nothing, served beside the
# fixtures.
PIN_FORM = {
    "id": "pin-form", "title": "PIN", "state": {"user": "", "resetAsked": False, "loggedIn": False},
    "sections": [
        {"id": "fields", "form": "login", "rows": [
            {"id": "user", "kind": "textField", "title": "User", "text": "{{user}}", "onEdit": {"set": "user"}},
            {"id": "pin", "kind": "textField", "title": "PIN", "secure": True, "validate": [{"required": True, "message": "Enter your PIN"}]}]},
        {"id": "erasing", "form": "erase", "rows": [
            {"id": "confirm", "kind": "textField", "title": "Confirm", "secure": True},
            {"id": "erase", "kind": "button", "title": "Erase", "onSelect": {"submit": "erase"}}]},
        {"id": "actions", "rows": [
            {"id": "forgot", "kind": "button", "title": "Forgot PIN", "onSelect": {"set": {"resetAsked": True}}},
            {"id": "login", "kind": "button", "title": "Log in", "onSelect": [{"submit": "login"}, {"set": {"loggedIn": True}}]},
            {"id": "asked", "kind": "basic", "title": "{{resetAsked ? 'Reset asked' : 'No reset'}}"},
            {"id": "status", "kind": "basic", "title": "{{loggedIn ? 'Logged in' : 'Logged out'}}"}]}]}

# A switch the service refuses (it has no onSwitch): written once the random events are
# done, which expect every switch to apply.
STUCK_SWITCH = {
    "id": "stuck-switch", "title": "Stuck", "state": {"stuck": True},
    "sections": [{"id": "main", "rows": [{"id": "stuck", "kind": "titleSwitch", "title": "Stuck", "isOn": "stuck"}]}]}


def wait_for(driver, condition, timeout, what):
    """Polls `condition(driver)` (WebDriver errors count as not yet) until it is truthy."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = condition(driver)
            if value:
                return value
        except WebDriverException as error:
            last_error = error
        if time.monotonic() > deadline:
            detail = f" (last error: {last_error.msg})" if last_error else ""
            raise Failure(f"timed out after {timeout} s waiting for {what}{detail}")
        time.sleep(0.05)


def wait_ready(driver, what="the page", timeout=10):
    wait_for(driver, lambda d: d.execute_script("return document.body && document.body.dataset.ready === 'true'"),
             timeout, f"{what} to be drawn (body[data-ready])")


def page_field(driver, name):
    return driver.find_element(By.CSS_SELECTOR, f'#inspector [data-field="{name}"]').get_attribute("textContent").strip()


def applied(driver):
    return int(driver.execute_script("return Number(document.body.dataset.applied || 0)"))


def settle(driver):
    """Waits for the page's animations (rows sliding, fading, switches) to end, so a click lands where it aims."""
    wait_for(driver, lambda d: d.execute_script(
        "return document.getAnimations().filter((a) => a.playState === 'running').length === 0"), 3, "animations to end")


def scroll_to(driver, element):
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)


def click(driver, element):
    """Scrolls the element to the middle of the screen once the page is still, and clicks it."""
    settle(driver)
    scroll_to(driver, element)
    try:
        element.click()
    except ElementClickInterceptedException:
        settle(driver)
        element.click()


READ_PAGE = """
const text = (node) => node ? node.textContent.trim() : null;
const main = document.getElementById('screen');
if (!main) return null;
return {
  id: main.dataset.screenId, style: main.dataset.style,
  revision: Number(main.dataset.revision), definition: main.dataset.definition,
  title: text(document.getElementById('large-title')),
  sections: Array.from(main.querySelectorAll(':scope > section.section')).map((section) => {
    const header = section.querySelector(':scope > .section-header');
    const footer = section.querySelector(':scope > .section-footer');
    return {
      id: section.dataset.sectionId,
      header: header ? {kind: header.dataset.kind, text: text(header)} : null,
      footer: footer ? {kind: footer.dataset.kind, text: text(footer)} : null,
      rows: Array.from(section.querySelectorAll('.row')).map((row) => {
        const input = row.querySelector('input.row-switch');
        const check = row.querySelector('.row-checkmark');
        const fields = {};
        for (const field of row.querySelectorAll('.row-field')) fields[field.dataset.name] = text(field.querySelector('.row-field-value'));
        const remove = row.querySelector('.row-delete');
        const control = row.querySelector('.row-control');
        const segment = row.querySelector('.row-segments input[type=radio]:checked');
        const error = row.querySelector('.row-error');
        return {
          id: row.dataset.rowId, kind: row.dataset.kind, accessory: row.dataset.accessory || null,
          selectable: row.dataset.selectable === 'true', deletable: row.dataset.deletable === 'true',
          title: text(row.querySelector('.row-title')), subtitle: text(row.querySelector('.row-subtitle')),
          detail: text(row.querySelector('.row-detail')),
          image: row.querySelector('.row-image') ? row.querySelector('.row-image').dataset.image : null,
          isOn: input ? input.checked : null,
          checked: Boolean(check && check.getBoundingClientRect().width > 0),
          deleteControl: Boolean(remove && remove.tagName === 'BUTTON' && remove.getBoundingClientRect().width > 0),
          fields: fields,
          enabled: row.dataset.enabled !== 'false',
          // A secure field shows what was typed; its copy, like GET's, never holds it.
          value: control && control.type !== 'password' ? (control.classList.contains('row-segments') ? (segment ? segment.value : '') : control.value) : null,
          editable: control ? !(control.disabled || Array.from(control.querySelectorAll('button, input')).some((b) => b.disabled)) : null,
          error: error && !error.hidden ? text(error) : null,
        };
      }),
    };
  }),
};
"""


def field_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def expected_header_footer(model):
    if not model:
        return None
    kind = model["kind"]
    if kind == "titleHeader":
        return {"kind": kind, "text": model["title"]}
    if kind == "textFooter":
        return {"kind": kind, "text": model["text"]}
    return {"kind": kind, "text": None}  # a custom kind: its fields are shown, compared by kind only


def expected_row(row):
    kind = row["kind"]
    title = subtitle = detail = image = None
    fields = {}
    if kind in ("basic", "subtitle", "titleSwitch", "checkmark", "button"):
        title = row["title"]
    if kind == "subtitle":
        subtitle = row["subtitle"]
        image = row.get("image")
    if kind == "leftRightTitles":
        title, detail = row["leftTitle"], row["rightTitle"]
    value = editable = None
    if kind in INPUT_KINDS:
        title = row.get("title") or ""
        shown = row.get(VALUE_FIELD[kind])
        value = None if row.get("secure") else "" if shown is None else field_text(shown)
        editable = bool(row.get("editable"))
    elif kind not in ("basic", "subtitle", "leftRightTitles", "titleSwitch", "checkmark", "empty", "button"):
        fields = {name: field_text(value) for name, value in row.items() if name not in COMMON_ROW_KEYS}
    return {
        "id": row["id"], "kind": kind, "accessory": row.get("accessory"),
        "selectable": bool(row.get("selectable")), "deletable": bool(row.get("deletable")),
        "title": title, "subtitle": subtitle, "detail": detail, "image": image,
        "isOn": row["isOn"] if kind == "titleSwitch" else None,
        "checked": bool(kind == "checkmark" and row.get("isChecked")) or row.get("accessory") == "checkmark",
        "deleteControl": bool(row.get("deletable")),
        "fields": fields,
        "enabled": row.get("enabled", True),
        "value": value, "editable": editable,
        "error": row.get("error"),
    }


def expected_page(screen):
    return {
        "id": screen["id"], "style": screen.get("style") or "plain",
        "revision": screen["revision"], "definition": screen["definition"], "title": screen["title"],
        "sections": [{
            "id": section["id"],
            "header": expected_header_footer(section.get("header")),
            "footer": expected_header_footer(section.get("footer")),
            "rows": [expected_row(row) for row in section["rows"]],
        } for section in screen["sections"]],
    }


def normalize(page):
    """The page as read, with custom header and footer texts left out (compared by kind)."""
    if page is None:
        return None
    for section in page["sections"]:
        for key in ("header", "footer"):
            model = section[key]
            if model and model["kind"] not in ("titleHeader", "textFooter"):
                model["text"] = None
    return page


def first_difference(actual, expected, path="page"):
    if type(actual) is not type(expected) and not (actual is None or expected is None):
        return f"{path}: the page has {actual!r}, GET has {expected!r}"
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(actual) | set(expected)):
            found = first_difference(actual.get(key), expected.get(key), f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(actual) != len(expected):
            ids = lambda items: [item.get("id") if isinstance(item, dict) else item for item in items]
            return f"{path}: the page has {len(actual)} items {ids(actual)}, GET has {len(expected)} {ids(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected)):
            found = first_difference(a, e, f"{path}[{index}]")
            if found:
                return found
        return None
    if actual != expected:
        return f"{path}: the page has {actual!r}, GET has {expected!r}"
    return None


def assert_page_matches(driver, api, screen_id, session, what, timeout=5, item=None):
    """Waits until the page shows exactly what GET answers in the session, else fails with the first difference."""
    deadline = time.monotonic() + timeout
    while True:
        expected = expected_page(api.screen(screen_id, session, item))
        actual = normalize(driver.execute_script(READ_PAGE))
        difference = first_difference(actual, expected)
        if difference is None:
            return expected
        if time.monotonic() > deadline:
            raise Failure(f"{what}: the page differs from GET /v1/screens/{screen_id}: {difference}")
        time.sleep(0.1)


# ---------------------------------------------------------------------------- the steps


class PreviewTest:
    def __init__(self, args, server, api, driver, screens_dir):
        self.args = args
        self.server = server
        self.api = api
        self.driver = driver
        self.screens_dir = screens_dir
        self.random = random.Random(args.seed)
        self.events = 0

    def open(self, screen_id, session=None):
        url = f"{self.server.url}/preview/{urllib.parse.quote(screen_id)}"
        if session:
            url += "?" + urllib.parse.urlencode({"session": session})
        self.driver.get(url)
        wait_ready(self.driver, f"/preview/{screen_id}")
        session = session or page_field(self.driver, "session")
        if not session or session in ("—", "-"):
            raise Failure(f"/preview/{screen_id}: the inspector shows no session token")
        current = urllib.parse.urlsplit(self.driver.current_url)
        if urllib.parse.parse_qs(current.query).get("session") != [session]:
            raise Failure(f"/preview/{screen_id}: the URL {self.driver.current_url} does not carry ?session= its session")
        return session

    def check_list_page(self):
        step("the list of screens")
        self.driver.get(f"{self.server.url}/preview")
        wait_ready(self.driver, "/preview")
        expected = {screen["id"]: screen["title"] for screen in self.api.get("/v1/screens")["screens"]}
        links = self.driver.execute_script("""
            return Array.from(document.querySelectorAll('#screen-list a')).map((a) => ({
              href: a.getAttribute('href'), text: a.textContent}));""")
        found = {}
        for link in links:
            match = re.fullmatch(r"/preview/([^?]+)", link["href"])
            if not match:
                raise Failure(f"list page: a link goes to {link['href']}, not /preview/ID")
            screen_id = urllib.parse.unquote(match.group(1))
            found[screen_id] = link["text"]
        if set(found) != set(expected):
            raise Failure(f"list page: lists {sorted(found)}, GET /v1/screens has {sorted(expected)}")
        for screen_id, title in expected.items():
            if title not in found[screen_id] or screen_id not in found[screen_id]:
                raise Failure(f"list page: the link to {screen_id} reads {found[screen_id]!r}, without its title {title!r} and id")
        return sorted(expected)

    def act(self, screen_id, session):
        """One random event on the page; returns False when the screen has nothing to act on."""
        driver = self.driver
        targets = driver.execute_script("""
            const main = document.getElementById('screen');
            const ids = (selector) => Array.from(main.querySelectorAll(selector)).map((node) => node.closest('.row').dataset.rowId);
            return {select: ids(".row[data-selectable='true']"), toggle: ids('.row input.row-switch'), remove: ids('.row .row-delete')};""")
        choices = [(kind, row) for kind, rows in targets.items() for row in rows]
        if not choices:
            return False
        kind, row_id = self.random.choice(choices)
        selector = {"select": f'.row[data-row-id="{row_id}"]', "toggle": f'.row[data-row-id="{row_id}"] input.row-switch',
                    "remove": f'.row[data-row-id="{row_id}"] .row-delete'}[kind]
        element = driver.find_element(By.CSS_SELECTOR, "#screen " + selector)
        settle(driver)
        scroll_to(driver, element)
        before = applied(driver)
        effects_before = driver.execute_script("return document.querySelectorAll('#effects li').length")
        self.events += 1
        marker = self.events
        driver.execute_script("window.__eventMarker = arguments[0]", marker)
        click(driver, element)
        outcome = wait_for(driver, lambda d: d.execute_script(
            "if (window.__eventMarker !== arguments[0]) return 'navigated';"
            "if (Number(document.body.dataset.applied || 0) <= arguments[1]) return null;"
            "return document.body.dataset.navigating ? 'navigating' : 'applied';", marker, before),
            5, f"{kind} {row_id} on {screen_id} to be applied (body[data-applied] > {before}) or to navigate")
        if outcome == "navigating":
            outcome = wait_for(driver, lambda d: d.execute_script(
                "return window.__eventMarker !== arguments[0] ? 'navigated' : null", marker),
                5, f"{kind} {row_id} on {screen_id} to navigate (body[data-navigating] is set)")
        if outcome == "navigated":
            wait_ready(driver, f"the screen {kind} {row_id} navigated to")
            path = urllib.parse.urlsplit(driver.current_url)
            target = urllib.parse.unquote(path.path.rsplit("/", 1)[-1])
            query = urllib.parse.parse_qs(path.query)
            if not path.path.startswith("/preview/") or query.get("session") != [session]:
                raise Failure(f"{kind} {row_id} on {screen_id} navigated to {driver.current_url}, not /preview/SCREEN?session=(the same session)")
            item = (query.get("item") or [None])[0]
            assert_page_matches(driver, self.api, target, session, f"after navigating from {screen_id} to {target}", item=item)
            print(f"   {kind} {row_id}: navigated to {target}{f' (item {item})' if item else ''}; back to {screen_id}", flush=True)
            self.open(screen_id, session)
        else:
            effects_after = driver.execute_script("return document.querySelectorAll('#effects li').length")
            if effects_after > effects_before:
                print(f"   {kind} {row_id}: openURL listed", flush=True)
        assert_page_matches(driver, self.api, screen_id, session, f"after {kind} {row_id} on {screen_id}")
        return True

    def check_screens(self, screen_ids):
        for screen_id in screen_ids:
            step(f"/preview/{screen_id}: drawn as GET answers it, then random events")
            session = self.open(screen_id)
            expected = assert_page_matches(self.driver, self.api, screen_id, session, f"/preview/{screen_id} when first drawn")
            if expected["revision"] != 0:
                raise Failure(f"/preview/{screen_id}: a new session should show revision 0, not {expected['revision']}")
            if page_field(self.driver, "revision") != "0" or page_field(self.driver, "definition") != expected["definition"]:
                raise Failure(f"/preview/{screen_id}: the inspector does not show revision 0 and definition {expected['definition']}")
            count = 0
            for _ in range(EVENTS_PER_SCREEN):
                if not self.act(screen_id, session):
                    break
                count += 1
            refetched = self.driver.execute_script("return Number(document.body.dataset.refetched || 0)")
            if refetched:
                raise Failure(f"/preview/{screen_id}: the page fetched the whole screen again {refetched} times; "
                              "answers and stream events should be applied as change sets")
            wait_for(self.driver, lambda d: d.execute_script("return document.getElementById('ghosts').children.length === 0"),
                     2, "the rows animated out to be gone (#ghosts empty)")
            print(f"   {count} events, page equal to GET after each", flush=True)

    def check_unknown_session(self):
        step("a session the service does not know: the page says so, and why")
        driver = self.driver
        driver.get(f"{self.server.url}/preview/settings?session=no-such-session-token")
        wait_for(driver, lambda d: d.find_element(By.ID, "banner").get_attribute("data-reason") == "unknown-session", 5,
                 "#banner to say the session is unknown (data-reason=unknown-session)")

    def check_effects(self):
        step("effects: navigate opens the target in the same session, openURL is listed")
        driver = self.driver
        session = self.open("about-details")
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="licenses"]'))
        wait_for(driver, lambda d: "https://example.com/tabula/licenses" in d.find_element(By.ID, "effects").get_attribute("textContent"),
                 5, "the openURL effect of 'licenses' to be listed in #effects")
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="back"]'))
        wait_for(driver, lambda d: urllib.parse.urlsplit(d.current_url).path == "/preview/settings", 5,
                 "'Back to Settings' to navigate to /preview/settings")
        wait_ready(driver, "/preview/settings after navigating")
        if page_field(driver, "session") != session:
            raise Failure("navigating lost the session: /preview/settings shows another session token")
        assert_page_matches(driver, self.api, "settings", session, "after navigating to settings")

    def check_form(self):
        step("a form: typing keeps focus and caret through answers, errors once touched, a submit with values")
        driver = self.driver
        session = self.open("sign-in")
        email = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="email"] .row-control')
        error = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="email"] .row-error')
        click(driver, email)
        before = applied(driver)
        email.send_keys("ann")
        wait_for(driver, lambda d: error.is_displayed() and "valid e-mail" in error.text, 5,
                 "the email row to show its error once an edit touched it")
        if driver.switch_to.active_element != email:
            raise Failure("the email field lost its focus when the edit's answer arrived")
        # A new error is said once by the view's live region, there since the first draw.
        announced = driver.execute_script("return document.querySelector('#screen .tabula-announcer')?.getAttribute('aria-live') + ' ' + document.querySelector('#screen .tabula-announcer')?.textContent")
        if "polite" not in announced or "valid e-mail" not in announced:
            raise Failure(f"the email row's new error was not announced: the live region says {announced!r}")
        # The error is the field's description, read with it, and the field is invalid.
        described = [email.get_attribute("aria-describedby"), error.get_attribute("id"), email.get_attribute("aria-invalid")]
        if not described[0] or described[0] != described[1] or described[2] != "true":
            raise Failure(f"the email field's aria-describedby, its error's id and aria-invalid are {described}")
        if applied(driver) <= before:
            raise Failure("the edit's answer was not applied as a change set")
        email.send_keys("@example.com")
        wait_for(driver, lambda d: not error.is_displayed(), 5, "the email row's error to go once its value passes")
        if email.get_attribute("aria-invalid") is not None:
            raise Failure("the email field stays aria-invalid once its error went")
        if driver.switch_to.active_element != email or email.get_attribute("value") != "ann@example.com":
            raise Failure(f"typing through two answers gave {email.get_attribute('value')!r} and moved the focus")
        caret = driver.execute_script("return arguments[0].selectionStart", email)
        if caret != len("ann@example.com"):
            raise Failure(f"the caret moved to {caret} while answers arrived")
        password = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="password"] .row-control')
        click(driver, password)
        password.send_keys("short")
        password_error = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="password"] .row-error')
        wait_for(driver, lambda d: password_error.is_displayed() and "8 characters" in password_error.text, 5,
                 "the secure field's error once its value was checked")
        self.save("sign-in-errors.png")
        # A password that passes the rules but not the backend: its error shows on the row.
        password.send_keys(" and longer")
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="sign-in"]'))
        wait_for(driver, lambda d: password_error.is_displayed() and "Wrong password" in password_error.text, 5,
                 "the backend's error on the password row after a submit with a wrong password")
        screen = assert_page_matches(driver, self.api, "sign-in", session, "after the backend's error")
        if "short and longer" in json.dumps(screen):
            raise Failure("the screen carries what was typed into the secure field")
        # The right one: the backend signs in and moves the app to the settings screen.
        click(driver, password)
        password.send_keys(Keys.CONTROL, "a")
        password.send_keys("correct horse")
        wait_for(driver, lambda d: not password_error.is_displayed(), 5, "the backend's error to go with the row's next edit")
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="sign-in"]'))
        wait_for(driver, lambda d: urllib.parse.urlsplit(d.current_url).path == "/preview/settings", 5,
                 "a successful sign-in to navigate to /preview/settings")
        wait_ready(driver, "/preview/settings after signing in")
        signed_in = self.api.screen("sign-in", session)
        if "Signed in as ann@example.com" not in json.dumps(signed_in):
            raise Failure(f"the backend's answer did not sign the session in: {json.dumps(signed_in)[:400]}")

    def type_into(self, row_id, text):
        """Types into the control of an input row of the page's screen."""
        control = self.driver.find_element(By.CSS_SELECTOR, f'#screen .row[data-row-id="{row_id}"] .row-control')
        click(self.driver, control)
        control.send_keys(text)

    def check_secure_values_follow_the_rows(self):
        step("a form whose secure row was hidden after typing: the submit goes without its value")
        driver = self.driver
        session = self.open("join-network")
        self.type_into("name", "Home")
        self.type_into("password", "abcdefghi")
        Select(driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="security"] select')).select_by_value("none")
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, '#screen .row[data-row-id="password"]'), 5,
                 "the password row to go once the network is open")
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="join"]'))
        # The service refuses a value for a hidden row (422): sent, the join would not happen.
        footer = lambda d: d.execute_script(
            "return (document.querySelector('#screen section.section .section-footer') || {}).textContent || ''")
        wait_for(driver, lambda d: "Joined Home" in footer(d), 5, "the join to go through without the hidden password's value")
        assert_page_matches(driver, self.api, "join-network", session, "after joining an open network")

    def check_buttons_that_submit_nothing(self):
        step("secure values typed into two forms, then a button that submits neither, and one that submits one: each goes with what it takes")
        if not self.screens_dir:
            print("   skipped: the server was not started by this test", flush=True)
            return
        driver = self.driver
        session = self.open("pin-form")
        title = lambda d, row: d.find_element(By.CSS_SELECTOR, f'#screen .row[data-row-id="{row}"] .row-title').text
        self.type_into("pin", "1234")
        self.type_into("confirm", "erase it")
        # The service refuses a value for a row of no form the selection submits (422, naming
        # the row); the client sends it again without that value.
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="forgot"]'))
        wait_for(driver, lambda d: title(d, "asked") == "Reset asked", 5, "Forgot PIN to go through")
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="login"]'))
        wait_for(driver, lambda d: title(d, "status") == "Logged in", 5,
                 "Log in to submit its form with the PIN that was typed, without the other form's value")
        assert_page_matches(driver, self.api, "pin-form", session, "after logging in")
        step("a switch the service refuses flips back")
        write_atomically(os.path.join(self.screens_dir, "stuck-switch.json"), json.dumps(STUCK_SWITCH))
        deadline = time.monotonic() + 5
        while self.api.call("GET", "/v1/screens/stuck-switch", session=session)[0] != 200:
            if time.monotonic() > deadline:
                raise Failure("the service did not serve stuck-switch.json once written")
            time.sleep(0.05)
        session = self.open("stuck-switch", session)
        toggle = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="stuck"] input.row-switch')
        if driver.execute_script("arguments[0].click(); return arguments[0].checked", toggle):
            raise Failure("the click did not turn the switch off")
        wait_for(driver, lambda d: toggle.is_selected(), 5, "the refused switch to go back on")
        assert_page_matches(driver, self.api, "stuck-switch", session, "after a refused switch")
        os.remove(os.path.join(self.screens_dir, "stuck-switch.json"))

    def check_second_flip_holds(self):
        step("a switch flipped twice before the first answer: no answer flips it back")
        driver = self.driver
        session = self.open("settings")
        selector = '#screen .row[data-row-id="bluetooth"] input.row-switch'
        start = driver.find_element(By.CSS_SELECTOR, selector).is_selected()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 600, "downloadThroughput": -1, "uploadThroughput": -1})
        try:
            # The switch's state every 20 ms: from the second click on, it must stay as the user left it.
            driver.execute_script("""
              const state = () => document.querySelector(arguments[0]).checked;
              window.__flips = [];
              document.querySelector(arguments[0]).click();
              setTimeout(() => {
                document.querySelector(arguments[0]).click();
                window.__watch = setInterval(() => window.__flips.push(state()), 20);
              }, 100);""", selector)
            wait_for(driver, lambda d: d.execute_script("return window.__flips.length") > 100, 10, "the switch watched for two seconds")
        finally:
            driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        flips = driver.execute_script("clearInterval(window.__watch); return window.__flips")
        if any(state != start for state in flips):
            raise Failure(f"the switch, flipped back by the user, showed {flips.count(not start)} times the other state while the answers came")
        assert_page_matches(driver, self.api, "settings", session, "after two flips")

    def wait_applied(self, before, what):
        wait_for(self.driver, lambda d: applied(d) > before, 5, what)

    def check_lists(self):
        step("lists: rows found by their accessibility texts, search, swipe actions, drag and keys to reorder")
        driver = self.driver
        session = self.open("inbox")
        screen = self.api.screen("inbox", session)
        spoken = driver.execute_script("""
            return Array.from(document.querySelectorAll('#screen .row')).map((row) => ({
              id: row.dataset.rowId, label: row.getAttribute('aria-label'), hint: row.getAttribute('aria-description')}));""")
        shown = {row["id"]: row for row in spoken}
        for section in screen["sections"]:
            for row in section["rows"]:
                label = ", ".join(text for text in (row.get("accessibilityLabel"), row.get("accessibilityValue")) if text)
                if label and shown[row["id"]]["label"] != label:
                    raise Failure(f"inbox: row {row['id']} has aria-label {shown[row['id']]['label']!r}, not {label!r}")
                if "accessibilityHint" in row and shown[row["id"]]["hint"] != row["accessibilityHint"]:
                    raise Failure(f"inbox: row {row['id']} has aria-description {shown[row['id']]['hint']!r}")
        # A row found by what a screen reader says of it.
        lunch = driver.find_element(By.CSS_SELECTOR, '#screen .row[aria-label^="Lunch on Friday?, from Farid Haddad"]')
        if lunch.get_attribute("data-row-id") != "message-m293":
            raise Failure(f"inbox: the row read as 'Lunch on Friday?, from Farid Haddad' is {lunch.get_attribute('data-row-id')}")

        # Search: the rows that no longer match leave; the field keeps its focus and text.
        search = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="inbox-search"] .row-control')
        click(driver, search)
        before = applied(driver)
        search.send_keys("lunch")
        wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, '#screen .row[data-row-id^="message-"]')) == 11, 5,
                 "the search to leave the 11 messages about lunch")
        self.wait_applied(before, "the search's answers to be applied")
        settle(driver)
        if driver.switch_to.active_element != search or search.get_attribute("value") != "lunch":
            raise Failure(f"the search field shows {search.get_attribute('value')!r} or lost its focus while answers arrived")
        assert_page_matches(driver, self.api, "inbox", session, "after searching for lunch")

        # A swipe action, through the button that reveals them.
        row = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="message-m293"]')
        click(driver, row.find_element(By.CSS_SELECTOR, ".row-actions"))
        wait_for(driver, lambda d: "swiped" in row.get_attribute("class"), 2, "the actions button to reveal the swipe actions")
        settle(driver)
        self.save("inbox-swipe-actions.png")
        def tray_tab_indexes(row_id):
            return driver.execute_script(
                "return Array.from(document.querySelectorAll(`#screen .row[data-row-id='${arguments[0]}'] .row-swipe-tray button`))"
                ".map((b) => b.tabIndex)", row_id)
        # Opened from the keyboard's ⋯, Tab goes on to the actions; a closed tray's stay out of the order.
        if set(tray_tab_indexes("message-m293")) != {0} or set(tray_tab_indexes("message-m292")) != {-1}:
            raise Failure(f"an open tray's buttons have tabIndex {tray_tab_indexes('message-m293')}, a closed one's "
                          f"{tray_tab_indexes('message-m292')}: only an open tray's should be in the tab order")
        flag = row.find_element(By.CSS_SELECTOR, '.row-swipe-action[data-action="flag"]')
        before = applied(driver)
        click(driver, flag)
        self.wait_applied(before, "the flag action's answer to be applied")
        assert_page_matches(driver, self.api, "inbox", session, "after flagging a message")
        if set(tray_tab_indexes("message-m293")) != {-1}:
            raise Failure(f"the tray closed by its action keeps tabIndex {tray_tab_indexes('message-m293')}")
        flagged = next(r for s in self.api.screen("inbox", session)["sections"] for r in s["rows"] if r["id"] == "message-m293")
        if [action["id"] for action in flagged.get("leadingActions", [])] != ["unflag"] or not flagged["title"].startswith("⚑"):
            raise Failure(f"the flag action did not flag message m293: {json.dumps(flagged)}")
        # A swipe by pointer reveals them too.
        other = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="message-m292"]')
        scroll_to(driver, other)
        ActionChains(driver).move_to_element(other).click_and_hold().move_by_offset(-60, 0).move_by_offset(-60, 0).release().perform()
        wait_for(driver, lambda d: "swiped" in other.get_attribute("class"), 2, "a leftward drag to reveal a row's swipe actions")
        before = applied(driver)
        click(driver, other.find_element(By.CSS_SELECTOR, '.row-swipe-action[data-action="archive"]'))
        self.wait_applied(before, "the archive action's answer to be applied")
        assert_page_matches(driver, self.api, "inbox", session, "after archiving a message")

        # Reorder the favourites: drag Ann's grip below Bob, then Grace up one with the keys.
        def favourites():
            return [r["id"] for r in self.api.screen("inbox", session)["sections"][0]["rows"]]
        ann = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="favourite-ann"]')
        bob = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="favourite-bob"]')
        scroll_to(driver, ann)
        settle(driver)
        before = applied(driver)
        height = bob.size["height"]
        ActionChains(driver).click_and_hold(ann.find_element(By.CSS_SELECTOR, ".row-grip")).move_to_element_with_offset(bob, 0, 2) \
            .move_to_element_with_offset(bob, 0, height // 4).release().perform()
        self.wait_applied(before, "the move's answer to be applied")
        if favourites()[:2] != ["favourite-bob", "favourite-ann"]:
            raise Failure(f"dragging Ann below Bob gave the favourites {favourites()}")
        assert_page_matches(driver, self.api, "inbox", session, "after dragging a favourite")
        grip = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="favourite-grace"] .row-grip')
        before = applied(driver)
        grip.send_keys(Keys.ARROW_UP)
        self.wait_applied(before, "the keyboard move's answer to be applied")
        if favourites() != ["favourite-bob", "favourite-ann", "favourite-grace", "favourite-chloe"]:
            raise Failure(f"moving Grace up one gave the favourites {favourites()}")
        assert_page_matches(driver, self.api, "inbox", session, "after moving a favourite with the keys")
        refetched = driver.execute_script("return Number(document.body.dataset.refetched || 0)")
        if refetched:
            raise Failure(f"inbox: the page fetched the whole screen again {refetched} times; answers should apply as change sets")

    def check_item_screens(self):
        step("master and detail: a person opens their screen, which edits and removes them, and goes back")
        driver = self.driver
        session = self.open("people")
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="person-alex-great"]'))
        wait_for(driver, lambda d: urllib.parse.urlsplit(d.current_url).path == "/preview/people-details", 5,
                 "a tap on Alex to open /preview/people-details")
        wait_ready(driver, "Alex's screen")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)
        if query.get("item") != ["alex-great"] or query.get("session") != [session]:
            raise Failure(f"the person's screen opened at {driver.current_url}, not ?item=alex-great in the same session")
        assert_page_matches(driver, self.api, "people-details", session, "Alex's screen", item="alex-great")
        if driver.find_element(By.ID, "large-title").text != "Alex Great":
            raise Failure(f"Alex's screen is titled {driver.find_element(By.ID, 'large-title').text!r}")
        age = driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="age"] .row-control')
        before = applied(driver)
        driver.execute_script("arguments[0].value = '40'; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", age)
        self.wait_applied(before, "the age's edit to be applied")
        assert_page_matches(driver, self.api, "people-details", session, "after editing Alex's age", item="alex-great")
        # The back button returns to the list, which shows the new age.
        click(driver, driver.find_element(By.ID, "back"))
        wait_for(driver, lambda d: urllib.parse.urlsplit(d.current_url).path == "/preview/people", 5, "the back button to return to people")
        wait_ready(driver, "people after going back")
        people = assert_page_matches(driver, self.api, "people", session, "people after editing Alex")
        alex = next(row for section in people["sections"] for row in section["rows"] if row["id"] == "person-alex-great")
        if "40" not in (alex["subtitle"] or ""):
            raise Failure(f"the list shows Alex as {alex}, not aged 40")
        # Remove him from his screen: the answer's back effect returns to the list without him.
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="person-alex-great"]'))
        wait_for(driver, lambda d: urllib.parse.urlsplit(d.current_url).path == "/preview/people-details", 5, "Alex's screen again")
        wait_ready(driver, "Alex's screen again")
        click(driver, driver.find_element(By.CSS_SELECTOR, '#screen .row[data-row-id="remove"]'))
        wait_for(driver, lambda d: urllib.parse.urlsplit(d.current_url).path == "/preview/people", 5,
                 "removing Alex to go back to people (the back effect)")
        wait_ready(driver, "people after removing Alex")
        people = assert_page_matches(driver, self.api, "people", session, "people after removing Alex")
        if any(row["id"] == "person-alex-great" for section in people["sections"] for row in section["rows"]):
            raise Failure("people still lists Alex after he was removed")
        # Removed by another client while his screen is open: the page says so, and its last
        # copy takes no input, since nothing done there would be sent.
        driver.get(f"{self.server.url}/preview/people-details?" + urllib.parse.urlencode({"item": "john-wayne", "session": session}))
        wait_ready(driver, "John Wayne's screen")
        wait_for(driver, lambda d: d.find_element(By.ID, "stream-status").get_attribute("textContent").strip() == "connected",
                 5, "John Wayne's stream to connect")
        status, answer = self.api.call("POST", "/v1/screens/people-details/selection?item=john-wayne", {"row": "remove"}, session)
        if status != 200:
            raise Failure(f"removing John Wayne from outside answered {status}: {answer}")
        wait_for(driver, lambda d: d.find_element(By.ID, "banner").get_attribute("data-reason") == "item-removed", 5,
                 "the page to say John Wayne was removed (#banner data-reason=item-removed)")
        if not driver.execute_script("return document.getElementById('screen').inert"):
            raise Failure("the removed item's last copy still takes input; it should be inert")

    def check_two_windows(self):
        step("two windows on one session follow each other")
        driver = self.driver
        session = self.open("settings")
        first = driver.current_window_handle
        another = driver.find_element(By.ID, "open-another").get_attribute("href")
        if f"session={urllib.parse.quote(session)}" not in another and f"session={session}" not in another:
            raise Failure(f"'Open in another window' links to {another}, without the session {session}")
        driver.switch_to.new_window("window")
        second = driver.current_window_handle
        driver.get(another)
        wait_ready(driver, "the second window")
        wait_for(driver, lambda d: d.find_element(By.ID, "stream-status").get_attribute("textContent").strip() == "connected",
                 5, "the second window's stream to connect")
        windows = [first, second]
        for index in range(8):
            acting = windows[index % 2]
            driver.switch_to.window(acting)
            # Keep to events that stay on the screen (no navigation) so both windows keep showing it.
            targets = driver.execute_script("""
                const main = document.getElementById('screen');
                return Array.from(main.querySelectorAll("input.row-switch, .row-delete, .row[data-kind='checkmark'][data-selectable='true']"))
                  .map((node) => [node.closest('.row').dataset.rowId, node.matches('input') ? 'input.row-switch' : node.matches('.row-delete') ? '.row-delete' : '']);""")
            row_id, part = self.random.choice(targets)
            element = driver.find_element(By.CSS_SELECTOR, f'#screen .row[data-row-id="{row_id}"] {part}'.strip())
            click(driver, element)
            for window in windows:
                driver.switch_to.window(window)
                assert_page_matches(driver, self.api, "settings", session,
                                    f"{'acting' if window == acting else 'other'} window after {row_id} in window {index % 2 + 1}")
        driver.switch_to.window(second)
        driver.close()
        driver.switch_to.window(first)

    def check_burst(self):
        step("a burst of taps without waiting: events go one at a time, each from the copy the page then shows")
        driver = self.driver
        session = self.open("settings")
        for row_id in ["bluetooth", "wifi", "bluetooth", "dark", "bluetooth", "light", "wifi"]:
            part = "" if row_id in ("dark", "light") else " input.row-switch"
            # A script's click: no waiting for the page to be still, as fast as taps can come.
            driver.execute_script("arguments[0].click()", driver.find_element(By.CSS_SELECTOR, f'#screen .row[data-row-id="{row_id}"]{part}'))
        wait_for(driver, lambda d: applied(d) >= 7, 10, "the seven answers to be applied")
        assert_page_matches(driver, self.api, "settings", session, "after a burst of taps")
        refetched = driver.execute_script("return Number(document.body.dataset.refetched || 0)")
        if refetched:
            raise Failure(f"a burst of taps made the page fetch the whole screen {refetched} times")

    def check_outside_events(self):
        step("an event sent with curl-like HTTP and a backend patch reach the page through the stream")
        driver = self.driver
        session = self.open("settings")
        session_id = page_field(driver, "session-id")
        wait_for(driver, lambda d: d.find_element(By.ID, "stream-status").get_attribute("textContent").strip() == "connected",
                 5, "the stream to connect")
        driver.execute_script("window.__marker = 1")
        screen = self.api.screen("settings", session)
        bluetooth = next(row for section in screen["sections"] for row in section["rows"] if row["id"] == "bluetooth")
        before = applied(driver)
        status, answer = self.api.call("POST", "/v1/screens/settings/switch",
                                       {"row": "bluetooth", "isOn": not bluetooth["isOn"], "eventId": "browser-test-http"}, session=session)
        if status != 200:
            raise Failure(f"POST /v1/screens/settings/switch answered {status}: {answer}")
        wait_for(driver, lambda d: applied(d) > before, 5, "the page to apply the stream's change set after an HTTP event")
        assert_page_matches(driver, self.api, "settings", session, "after an event sent over HTTP")
        before = applied(driver)
        status, answer = self.api.call(
            "PATCH", f"/v1/sessions/{session_id}/state", {"appearance": "light"}, content_type="application/merge-patch+json",
            headers={"Authorization": f"Bearer {BACKEND_KEY}", "If-Match": "*"})
        if status != 200:
            raise Failure(f"PATCH /v1/sessions/{session_id}/state answered {status}: {answer}")
        wait_for(driver, lambda d: applied(d) > before, 5, "the page to apply the stream's change set after a backend patch")
        assert_page_matches(driver, self.api, "settings", session, "after a backend patch")
        if driver.execute_script("return window.__marker") != 1:
            raise Failure("the page reloaded to follow an outside event; it should apply the stream's change set")
        last = driver.find_element(By.ID, "last-changes").get_attribute("textContent")
        try:
            json.loads(last)
        except ValueError:
            raise Failure(f"#last-changes is not the last change set as JSON: {last[:200]!r}")

    def check_languages(self):
        step("the language menu switches the screen's language with one change set; a saved translation reloads live")
        driver = self.driver
        session = self.open("settings")
        wait_for(driver, lambda d: d.find_element(By.ID, "stream-status").get_attribute("textContent").strip() == "connected",
                 5, "the stream to connect")
        driver.execute_script("window.__marker = 1")
        menu = driver.find_element(By.ID, "locale")
        wait_for(driver, lambda d: not d.find_element(By.ID, "locale").get_property("disabled"), 5, "the language menu to be enabled")
        options = driver.execute_script("return Array.from(document.querySelectorAll('#locale option')).map((o) => o.value)")
        if options != ["en", "fr", "pl"]:
            raise Failure(f"the language menu offers {options}, the catalogue has en, fr, pl")
        if menu.get_property("value") != "en":
            raise Failure(f"a new session in an English browser shows {menu.get_property('value')!r}, not en")
        for locale, title, footer in [("fr", "Réglages", "2 réseaux connus"), ("pl", "Ustawienia", "2 znane sieci")]:
            before = applied(driver)
            driver.execute_script(
                "const menu = document.getElementById('locale'); menu.value = arguments[0];"
                " menu.dispatchEvent(new Event('change'));", locale)
            wait_for(driver, lambda d: applied(d) > before, 5, f"the page to apply the change set of the switch to {locale}")
            expected = assert_page_matches(driver, self.api, "settings", session, f"in {locale}")
            shown = driver.find_element(By.ID, "navbar-title").get_attribute("textContent").strip()
            if expected.get("title") != title or shown != title:
                raise Failure(f"in {locale}, the title is {shown!r} (GET: {expected.get('title')!r}), expected {title!r}")
            footers = driver.execute_script("return Array.from(document.querySelectorAll('#screen .section-footer')).map((f) => f.textContent.trim())")
            if footer not in footers:
                raise Failure(f"in {locale}, the footers are {footers}, expected {footer!r} among them")
            print(f"   {locale}: {title!r}, {footer!r}", flush=True)
        driver.save_screenshot(os.path.join(self.args.output, "settings-pl.png"))
        refetched = driver.execute_script("return Number(document.body.dataset.refetched || 0)")
        if refetched:
            raise Failure(f"switching the language made the page fetch the whole screen {refetched} times")
        if driver.execute_script("return window.__marker") != 1:
            raise Failure("the page reloaded to switch the language; it should apply the stream's change set")

        # The same session joined without &locale: the page cannot tell its language (Polish,
        # chosen above), so the menu says "the session's language" rather than claim English.
        self.open("settings", session)
        wait_for(driver, lambda d: not d.find_element(By.ID, "locale").get_property("disabled"), 5, "the joined page's language menu to be enabled")
        joined = driver.execute_script("const m = document.getElementById('locale'); return [m.value, m.options[m.selectedIndex]?.textContent]")
        if joined != ["", "the session's language"]:
            raise Failure(f"a session joined without &locale shows the language {joined}, not the session's own")
        assert_page_matches(driver, self.api, "settings", session, "joined without &locale")
        driver.execute_script("window.__marker = 1")

        if not self.screens_dir:
            return
        path = os.path.join(os.path.dirname(self.screens_dir), "strings", "pl.json")
        with open(path, encoding="utf-8") as file:
            original = file.read()
        before = applied(driver)
        write_atomically(path, original.replace('"Ustawienia"', '"Ustawienia (nowe)"', 1))
        wait_for(driver, lambda d: d.find_element(By.ID, "navbar-title").get_attribute("textContent").strip() == "Ustawienia (nowe)",
                 5, "the edited Polish title to appear (a saved string table reloads live)")
        assert_page_matches(driver, self.api, "settings", session, "after pl.json was edited")
        write_atomically(path, original)
        wait_for(driver, lambda d: d.find_element(By.ID, "navbar-title").get_attribute("textContent").strip() == "Ustawienia",
                 5, "the Polish title to come back once pl.json is restored")
        if driver.execute_script("return window.__marker") != 1:
            raise Failure("the page reloaded to show the edited string table")
        print(f"   pl.json edited and restored: the page followed, {applied(driver) - before} change sets", flush=True)

    def check_live_reload(self):
        step("a saved definition file reloads the page live; a broken one is listed as a problem")
        if not self.screens_dir:
            print("   skipped: the server was not started by this test", flush=True)
            return
        driver = self.driver
        path = os.path.join(self.screens_dir, "settings.json")
        with open(path, encoding="utf-8") as file:
            original = file.read()
        session = self.open("settings")
        old_definition = driver.find_element(By.ID, "screen").get_attribute("data-definition")
        wait_for(driver, lambda d: d.find_element(By.ID, "stream-status").get_attribute("textContent").strip() == "connected",
                 5, "the stream to connect")
        driver.execute_script("window.__marker = 1")
        definition = json.loads(original)
        appearance = next(section for section in definition["sections"] if section["id"] == "appearance")
        appearance["rows"].append({"id": "added-by-browser-test", "kind": "basic", "title": "Added while open"})
        write_atomically(path, json.dumps(definition, indent=2, ensure_ascii=False))
        started = time.monotonic()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#screen .row[data-row-id="added-by-browser-test"]'),
                 3, "the row added to settings.json to appear (live reload through the stream)")
        print(f"   the added row appeared after {time.monotonic() - started:.2f} s", flush=True)
        if driver.execute_script("return window.__marker") != 1:
            raise Failure("the page reloaded to show the edited definition; it should apply the stream's change set")
        expected = assert_page_matches(driver, self.api, "settings", session, "after the definition was edited")
        if expected["definition"] == old_definition:
            raise Failure("the edited definition kept its definition id")
        if page_field(driver, "definition") != expected["definition"]:
            raise Failure(f"the inspector shows definition {page_field(driver, 'definition')}, the screen has {expected['definition']}")

        write_atomically(path, original[: len(original) // 2])
        wait_for(driver, lambda d: "settings.json" in d.execute_script(
            "return Array.from(document.querySelectorAll('#catalogue-problems li')).map((li) => li.textContent).join('\\n')"),
            5, "#catalogue-problems to list settings.json after it was broken")
        problems = driver.execute_script("return Array.from(document.querySelectorAll('#catalogue-problems li')).map((li) => li.textContent)")
        print(f"   listed: {problems}", flush=True)
        if not driver.find_element(By.ID, "catalogue-problems").is_displayed():
            raise Failure("#catalogue-problems lists the problem but is not visible")
        if not driver.find_elements(By.CSS_SELECTOR, '#screen .row[data-row-id="added-by-browser-test"]'):
            raise Failure("the screen lost the added row when the file broke; the last good catalogue should keep serving")
        if driver.execute_script("return window.__marker") != 1:
            raise Failure("the page reloaded when the file broke")
        assert_page_matches(driver, self.api, "settings", session, "while settings.json is broken")

        write_atomically(path, original)
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#catalogue-problems li"), 5,
                 "#catalogue-problems to empty once settings.json is fixed")
        print("   problems cleared once the file was fixed", flush=True)
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, '#screen .row[data-row-id="added-by-browser-test"]'),
                 3, "the added row to leave once the original file is back")
        if driver.find_element(By.ID, "catalogue-problems").is_displayed():
            raise Failure("#catalogue-problems is still shown with no problems")
        assert_page_matches(driver, self.api, "settings", session, "after settings.json was restored")

        # An input row updated in place: its control's label and limits follow, and a limit the
        # definition drops leaves the control too.
        path = os.path.join(self.screens_dir, "pin-form.json")
        with open(path, encoding="utf-8") as file:
            original = file.read()
        session = self.open("pin-form")
        wait_for(driver, lambda d: d.find_element(By.ID, "stream-status").get_attribute("textContent").strip() == "connected",
                 5, "pin-form's stream to connect")
        def user_control():
            return driver.execute_script(
                "const c = document.querySelector('#screen .row[data-row-id=\"user\"] .row-control');"
                " return [c.getAttribute('aria-label'), c.getAttribute('placeholder'), c.getAttribute('maxlength')];")
        edited = json.loads(original)
        edited["sections"][0]["rows"][0].update({"title": "Login", "placeholder": "you@example.com", "maxLength": 8})
        write_atomically(path, json.dumps(edited))
        wait_for(driver, lambda d: user_control() == ["Login", "you@example.com", "8"], 5,
                 "the user field's aria-label, placeholder and maxlength to read Login, you@example.com, 8 after its definition changed")
        write_atomically(path, original)
        wait_for(driver, lambda d: user_control() == ["User", None, None], 5,
                 "the user field to lose its placeholder and maximum again")
        assert_page_matches(driver, self.api, "pin-form", session, "after pin-form.json was restored")
        print("   an input row's label, placeholder and maximum length follow its definition", flush=True)

        # A removed screen: the page says so and keeps its last copy; back, it follows again.
        path = os.path.join(self.screens_dir, "static-text.json")
        with open(path, encoding="utf-8") as file:
            original = file.read()
        session = self.open("static-text")
        driver.execute_script("window.__marker = 1")
        wait_for(driver, lambda d: page_field(d, "catalogue").startswith("version"), 5, "the catalogue's first poll")
        catalogue = page_field(driver, "catalogue")
        os.remove(path)
        wait_for(driver, lambda d: d.find_element(By.ID, "banner").get_attribute("data-reason") == "screen-removed", 5,
                 "the page to say static-text was removed (#banner data-reason=screen-removed) after its file was deleted")
        # The stream's word for it stays once the catalogue's poll has seen the removal too.
        wait_for(driver, lambda d: page_field(d, "catalogue") != catalogue, 5, "the catalogue's poll to see the removal")
        if driver.find_element(By.ID, "banner").get_attribute("data-reason") != "screen-removed":
            raise Failure(f"the removed screen's banner says {driver.find_element(By.ID, 'banner').get_attribute('data-reason')!r}, "
                          "not screen-removed")
        if not driver.find_elements(By.CSS_SELECTOR, "#screen .row"):
            raise Failure("the page emptied the removed screen; it should keep showing its last copy")
        write_atomically(path, original)
        wait_for(driver, lambda d: not d.find_element(By.ID, "banner").is_displayed(), 5,
                 "the removal notice to go once static-text.json is back")
        assert_page_matches(driver, self.api, "static-text", session, "after static-text.json came back")
        if driver.execute_script("return window.__marker") != 1:
            raise Failure("the page reloaded when its screen was removed or came back")
        print("   a removed screen is reported, and followed again once it is back", flush=True)

    def screenshots(self):
        step("screenshots")
        driver = self.driver
        paths = []
        # A phone beside the inspector, at twice the pixels, as a Retina screen shows it.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1100, "height": 900, "deviceScaleFactor": 2, "mobile": False})
        try:
            for scheme in ("light", "dark"):
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
                    "features": [{"name": "prefers-color-scheme", "value": scheme},
                                 {"name": "prefers-reduced-motion", "value": "reduce"}]})
                driver.get(f"{self.server.url}/preview")
                wait_ready(driver, "/preview")
                paths.append(self.save(f"list-{scheme}.png"))
                for screen_id in SCREENSHOT_SCREENS:
                    self.open(screen_id)
                    style = driver.find_element(By.ID, "screen").get_attribute("data-style")
                    wait_for(driver, lambda d: d.find_element(By.ID, "stream-status").get_attribute("textContent").strip() == "connected",
                             5, "the stream to connect")
                    paths.append(self.save(f"{screen_id}-{style}-{scheme}.png"))
        finally:
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        return paths

    def save(self, name):
        path = os.path.join(self.args.output, name)
        if not self.driver.save_screenshot(path):
            raise Failure(f"could not save the screenshot {path}")
        print(f"   {path}", flush=True)
        return path


def write_atomically(path, text):
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def browser_errors(driver):
    """Errors the page logged to the console (failed requests the test caused on purpose aside)."""
    try:
        entries = driver.get_log("browser")
    except WebDriverException:
        return []
    return [entry["message"] for entry in entries if entry.get("level") == "SEVERE" and "/v1/" not in entry["message"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tabula", default=".build/debug/tabula", help="the tabula binary")
    parser.add_argument("--fixtures", default="Fixtures/screens", help="the screens to copy and serve")
    parser.add_argument("--output", default=".build/test-output/preview", help="where screenshots and logs go")
    parser.add_argument("--seed", type=int, default=43, help="the seed of the random events")
    parser.add_argument("--url", help="development: use this running server instead of starting one")
    parser.add_argument("--screens-dir", help="development, with --url: the directory that server watches (else the live reload step is skipped)")
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    stale = os.path.join(args.output, "failure.png")
    if os.path.exists(stale):
        os.remove(stale)

    temporary = tempfile.mkdtemp(prefix="tabula-preview-test-")
    server = None
    driver = None
    try:
        if args.url:
            server = Server(None, None, None)
            server.url = args.url.rstrip("/")
            screens_dir = args.screens_dir
        else:
            screens_dir = os.path.join(temporary, "screens")
            shutil.copytree(args.fixtures, screens_dir)
            with open(os.path.join(screens_dir, "pin-form.json"), "w", encoding="utf-8") as file:
                json.dump(PIN_FORM, file)
            # The string tables beside the screens, as tabula finds them.
            strings = os.path.join(os.path.dirname(os.path.abspath(args.fixtures)), "strings")
            if os.path.isdir(strings):
                shutil.copytree(strings, os.path.join(temporary, "strings"))
            server = Server(os.path.abspath(args.tabula), screens_dir, os.path.join(args.output, "server.log"))
            server.start()
        print(f"serving on {server.url}", flush=True)
        api = API(server.url)
        driver = make_driver(args.output)
        test = PreviewTest(args, server, api, driver, screens_dir)
        screen_ids = test.check_list_page()
        test.check_screens(screen_ids)
        test.check_unknown_session()
        test.check_effects()
        test.check_form()
        test.check_secure_values_follow_the_rows()
        test.check_buttons_that_submit_nothing()
        test.check_second_flip_holds()
        test.check_lists()
        test.check_item_screens()
        test.check_two_windows()
        test.check_burst()
        test.check_outside_events()
        test.check_languages()
        test.check_live_reload()
        shots = test.screenshots()
        errors = browser_errors(driver)
        if errors:
            raise Failure("the page logged errors to the console:\n  " + "\n  ".join(errors))
        print(f"preview: {len(screen_ids)} screens, {test.events} random events, {len(shots)} screenshots in {args.output}")
        print("1 passed, 0 failed")
        return 0
    except (Failure, WebDriverException) as failure:
        message = failure.msg if isinstance(failure, WebDriverException) else str(failure)
        print(f"FAIL: {message}", file=sys.stderr, flush=True)
        if driver:
            try:
                path = os.path.join(args.output, "failure.png")
                driver.save_screenshot(path)
                print(f"screenshot of the failure: {path}", file=sys.stderr)
                for message in browser_errors(driver):
                    print(f"console: {message}", file=sys.stderr)
            except WebDriverException:
                pass
        if server and server.processes:
            print(f"the server's last lines:\n{server.tail()}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    finally:
        if driver:
            driver.quit()
        if server:
            server.stop()
        shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
