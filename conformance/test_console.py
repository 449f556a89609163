"""The web console, driven in a real browser (Debian's chromium, through chromedriver and Selenium).

It publishes a template through the Remote Config page and watches the STALE ping arrive, live,
in a device's inbox on the Messaging page (the device registered and subscribed through that page),
compares two versions, and checks that a bad value gets the service's error next to the form.
Every page is saved as a screenshot under .build/console-screenshots/, and any JavaScript error in
the browser's console fails the test.
"""

import os
import shutil
import uuid

import pytest

from conftest import PROJECT, ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
SHOTS = ROOT / ".build" / "console-screenshots"

pytestmark = [
    pytest.mark.skipif(os.environ.get("CONFORMANCE_DEPLOY", "1") == "0", reason="functions not deployed"),
    # .ci/run installs chromium and chromium-driver and sets CONFORMANCE_REQUIRE_BROWSER=1: there, a
    # missing browser fails the tests instead of skipping them (pytest -rs lists every skip).
    pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER) and os.environ.get("CONFORMANCE_REQUIRE_BROWSER") != "1",
                       reason="chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"),
]


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1366,900"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def wait(driver, condition, timeout=20):
    """Waits for `condition`; elements the page redrew meanwhile (it updates live) are looked up again."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, timeout, ignored_exceptions=[NoSuchElementException, StaleElementReferenceException]) \
        .until(condition)


def find(driver, css):
    from selenium.webdriver.common.by import By
    return wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, css))


def type_into(driver, css, text):
    """Types into an element of a part the page redraws live: found and typed into in one step,
    again if the redraw replaced it in between."""
    from selenium.webdriver.common.by import By
    return wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, css).send_keys(text) or True)


def click(driver, css):
    """Clicks an element of a part the page redraws live: found and clicked in one step, again if
    the redraw replaced it in between."""
    from selenium.webdriver.common.by import By
    return wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, css).click() or True)


TITLES = {"overview": "Overview", "functions": "Functions", "events": "Events", "remote-config": "Remote Config",
          "database": "Realtime Database", "authentication": "Authentication", "messaging": "Messaging",
          "analytics": "Analytics"}


def open_page(driver, emulator, page):
    """Loads the console afresh on a page, and waits until it shows it and its live stream is
    connected. (From the same page, a get() of its URL would only change the fragment.)"""
    driver.get("about:blank")
    driver.get(f"{emulator.base}/#/{page}")
    wait(driver, lambda d: d.execute_script("return document.querySelector('main h1')?.textContent") == TITLES[page])
    wait(driver, lambda d: d.find_element("css selector", "#live").text == "live")


def javascript_errors(driver):
    """Errors in the browser's console: script errors, and any console file that failed to load. A
    service's 4xx answer to a deliberately bad value is the page working, not an error."""
    def deliberate(entry):
        return entry["source"] == "network" and "/__/console/" not in entry["message"] \
            and "status of 4" in entry["message"]
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and not deliberate(entry)]


def test_publish_on_the_remote_config_page_reaches_a_device_inbox_live(app, emulator, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    # The Messaging page: register an iOS device and subscribe it to PUSH_RC, as a user would.
    open_page(browser, emulator, "messaging")
    _, listed, _ = emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/devices")
    known = {device["token"] for device in listed["devices"]}
    browser.find_element(By.ID, "register-platform").send_keys("ios")
    browser.find_element(By.CSS_SELECTOR, "#register-platform + button").click()
    token = wait(browser, lambda d: (lambda selected: selected not in known and selected)(
        d.execute_script("return document.querySelector('tr.selected[data-device]')?.dataset.device")))
    wait(browser, lambda d: d.find_element(By.ID, "subscribe-device").get_attribute("value") == token)
    browser.find_element(By.ID, "subscribe-topic").send_keys("PUSH_RC", Keys.ENTER)
    wait(browser, lambda d: "PUSH_RC" in d.find_element(By.CSS_SELECTOR, f'tr[data-device="{token}"]').text)
    wait(browser, lambda d: "This inbox is empty." in d.find_element(By.ID, "inbox").text)
    messaging_tab = browser.current_window_handle

    # In a second tab, the Remote Config page: add a parameter and publish.
    browser.switch_to.new_window("tab")
    open_page(browser, emulator, "remote-config")
    welcome = f"hello-{uuid.uuid4().hex[:6]}"
    browser.find_element(By.ID, "new-parameter-key").send_keys("console_welcome")
    browser.find_element(By.ID, "new-parameter-value").send_keys(welcome, Keys.ENTER)
    browser.find_element(By.ID, "publish-description").send_keys("from the console")
    browser.find_element(By.ID, "publish-button").click()
    published = wait(browser, lambda d: d.find_element(By.ID, "publish").text.startswith("Published version")
                     and d.find_element(By.ID, "publish").text)
    version = int(published.split()[-1].rstrip("."))
    browser.save_screenshot(str(SHOTS / "remote-config.png"))

    # Back on the Messaging tab, without reloading: pushConfig's ping arrives in the inbox.
    browser.switch_to.window(messaging_tab)
    wait(browser, lambda d: "CONFIG_STATE = STALE" in d.find_element(By.ID, "inbox").text, timeout=60)
    inbox = browser.find_element(By.ID, "inbox").text
    assert "topic PUSH_RC" in inbox, inbox
    browser.save_screenshot(str(SHOTS / "messaging.png"))

    # The Remote Config page again: change the value, publish, and compare the two versions.
    browser.switch_to.new_window("tab")
    open_page(browser, emulator, "remote-config")
    value = find(browser, 'input[data-parameter="console_welcome"]')
    assert value.get_attribute("value") == welcome
    value.clear()
    value.send_keys(welcome + "-2")
    browser.find_element(By.ID, "publish-button").click()
    wait(browser, lambda d: d.find_element(By.ID, "publish").text == f"Published version {version + 1}.")
    # The version list is drawn again once the publish is known: wait until it offers the new one.
    wait(browser, lambda d: f"version {version + 1}" in d.find_element(By.ID, "diff-right").text)
    type_into(browser, "#diff-left", f"version {version}")
    type_into(browser, "#diff-right", f"version {version + 1}")
    browser.find_element(By.ID, "diff-button").click()
    diff = wait(browser, lambda d: d.find_element(By.ID, "diff-result").text)
    assert "1 changed line." in diff, diff
    changed = browser.find_element(By.CSS_SELECTOR, "#diff-result tr.changed").text
    assert welcome in changed and welcome + "-2" in changed, changed
    browser.save_screenshot(str(SHOTS / "remote-config-diff.png"))

    # A value the service refuses: its error appears next to the form, and nothing is published.
    browser.find_element(By.CSS_SELECTOR, "details summary").click()
    editor = browser.find_element(By.ID, "template-json")
    editor.clear()
    editor.send_keys('{"parameters": {"bad key!": {"defaultValue": {"value": "x"}}}}')
    browser.find_element(By.XPATH, "//button[text()='Use this JSON']").click()
    browser.find_element(By.ID, "publish-button").click()
    error = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#publish .error").text)
    assert "bad key!" in error or "INVALID" in error.upper(), error
    status, current, _ = emulator.request("GET", f"/v1/projects/{PROJECT}/remoteConfig")
    assert status == 200 and current["version"]["versionNumber"] == str(version + 1), current

    assert javascript_errors(browser) == []


def test_conditions_and_conditional_values_are_edited_in_the_remote_config_page(app, emulator, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    open_page(browser, emulator, "remote-config")
    suffix = uuid.uuid4().hex[:6]
    condition, renamed, key = f"ios_{suffix}", f"apple_{suffix}", f"greeting_{suffix}"
    browser.find_element(By.ID, "new-condition-name").send_keys(condition)
    browser.find_element(By.ID, "new-condition-expression").send_keys("device.os == 'ios'", Keys.ENTER)
    find(browser, f'input[data-condition-name="{condition}"]')
    browser.find_element(By.ID, "new-parameter-key").send_keys(key)
    browser.find_element(By.ID, "new-parameter-value").send_keys("hello", Keys.ENTER)
    Select(find(browser, f'select[aria-label="Add a conditional value to {key}"]')).select_by_visible_text(condition)
    value = find(browser, f'input[data-conditional="{key}/{condition}"]')
    assert value.get_attribute("value") == "hello"  # starts from the default
    value.clear()
    value.send_keys("hello, iPhone")
    browser.find_element(By.ID, "publish-button").click()
    wait(browser, lambda d: d.find_element(By.ID, "publish").text.startswith("Published version")
         or d.find_element(By.CSS_SELECTOR, "#publish .error").text)  # or an error, whose text the assert shows
    assert browser.find_element(By.ID, "publish").text.startswith("Published version"), browser.find_element(By.ID, "publish").text
    _, template, _ = emulator.request("GET", f"/v1/projects/{PROJECT}/remoteConfig")
    assert {"name": condition, "expression": "device.os == 'ios'"} in template["conditions"], template["conditions"]
    assert template["parameters"][key]["conditionalValues"] == {condition: {"value": "hello, iPhone"}}

    # Renamed in the table (Enter commits it): the parameter's value follows the new name.
    name = find(browser, f'input[data-condition-name="{condition}"]')
    name.send_keys(Keys.CONTROL, "a")
    name.send_keys(renamed, Keys.ENTER)
    find(browser, f'input[data-conditional="{key}/{renamed}"]')
    browser.find_element(By.ID, "publish-button").click()
    published = wait(browser, lambda d: d.find_element(By.ID, "publish").text.startswith("Published version")
                     and d.find_element(By.ID, "publish").text)
    _, template, _ = emulator.request("GET", f"/v1/projects/{PROJECT}/remoteConfig")
    names = [entry["name"] for entry in template["conditions"]]
    assert renamed in names and condition not in names, names
    assert template["parameters"][key]["conditionalValues"] == {renamed: {"value": "hello, iPhone"}}
    browser.save_screenshot(str(SHOTS / "remote-config-conditions.png"))

    # An expression the service cannot parse: its message under the form, nothing published.
    expression = find(browser, f'input[data-condition-expression="{renamed}"]')
    expression.clear()
    expression.send_keys("device.os ==")
    browser.find_element(By.ID, "publish-button").click()
    error = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#publish .error").text)
    assert renamed in error or "expression" in error.lower(), error
    _, current, _ = emulator.request("GET", f"/v1/projects/{PROJECT}/remoteConfig")
    assert current["version"]["versionNumber"] == published.split()[-1].rstrip("."), current["version"]

    # Deleting the condition deletes the values that used it.
    browser.find_element(By.CSS_SELECTOR, f'button[aria-label="Delete {renamed}"]').click()
    assert not browser.find_elements(By.CSS_SELECTOR, f'input[data-conditional="{key}/{renamed}"]')
    browser.find_element(By.ID, "publish-button").click()
    wait(browser, lambda d: d.find_element(By.ID, "publish").text.startswith("Published version"))
    _, template, _ = emulator.request("GET", f"/v1/projects/{PROJECT}/remoteConfig")
    assert renamed not in [entry["name"] for entry in template.get("conditions", [])]
    assert "conditionalValues" not in template["parameters"][key], template["parameters"][key]

    assert javascript_errors(browser) == []


def test_editing_a_score_in_the_database_page_updates_the_leaderboard_live(app, emulator, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    player = f"console{uuid.uuid4().hex[:6]}"
    score_id = f"s{uuid.uuid4().hex[:8]}"
    status, _, _ = emulator.request("PUT", f"/scores/{score_id}.json?ns={PROJECT}-default-rtdb",
                                    {"playerName": player, "score": 10, "cheatMode": False})
    assert status == 200
    emulator.wait_for_deliveries()

    open_page(browser, emulator, "database")
    wait(browser, lambda d: d.find_element(By.ID, "db-path").get_attribute("value") == "/")
    for path in ["scores", f"scores/{score_id}", "leaderboard"]:
        click(browser, f'button[aria-label="Expand {path}"]')
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f'li[data-path="leaderboard/{player}"] code').text == "10")

    click(browser, f'button[aria-label="Edit scores/{score_id}/score"]')
    editor = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f'input[data-edit="scores/{score_id}/score"]'))
    editor.clear()
    editor.send_keys("42", Keys.ENTER)
    # onScoreWrite runs and raises the player's best; the tree shows it without a reload.
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f'li[data-path="leaderboard/{player}"] code').text == "42",
         timeout=60)
    assert wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f'li[data-path="scores/{score_id}/score"] code').text) == "42"
    browser.save_screenshot(str(SHOTS / "database.png"))

    # A key the database refuses: its message next to the tree, and nothing written.
    click(browser, 'button[aria-label="Add a child to leaderboard"]')
    inputs = browser.find_elements(By.CSS_SELECTOR, 'li[data-path="leaderboard"] > .actions input')
    inputs[0].send_keys("bad.key")
    inputs[1].send_keys("1", Keys.ENTER)
    error = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#db-tree ~ div .error").text)
    assert "bad.key" in error or "Invalid" in error, error
    assert "bad.key" not in emulator.request("GET", f"/leaderboard.json?ns={PROJECT}-default-rtdb&shallow=true")[1]

    assert javascript_errors(browser) == []


def test_keys_named_like_javascript_internals_show_in_the_database_tree(app, emulator, browser):
    from selenium.webdriver.common.by import By

    top = f"odd{uuid.uuid4().hex[:6]}"
    status, _, _ = emulator.request("PUT", f"/{top}.json?ns={PROJECT}-default-rtdb", {"constructor": 2})
    assert status == 200
    open_page(browser, emulator, "database")
    click(browser, f'button[aria-label="Expand {top}"]')
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f'li[data-path="{top}/constructor"] code').text == "2")
    # Keys created while the page streams: `__proto__` is a key like any other.
    emulator.request("PUT", f"/{top}/__proto__.json?ns={PROJECT}-default-rtdb", {"x": 1})
    emulator.request("PATCH", f"/{top}.json?ns={PROJECT}-default-rtdb", {"toString": "t"})
    click(browser, f'button[aria-label="Expand {top}/__proto__"]')
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f'li[data-path="{top}/__proto__/x"] code').text == "1")
    assert browser.find_element(By.CSS_SELECTOR, f'li[data-path="{top}/toString"] code').text == '"t"'
    assert javascript_errors(browser) == []


def test_users_are_added_edited_and_imported_on_the_authentication_page(app, emulator, browser, tmp_path):
    import json

    from firebase_admin import auth
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    open_page(browser, emulator, "authentication")
    email = f"console-{uuid.uuid4().hex[:6]}@example.com"
    browser.find_element(By.ID, "new-email").send_keys(email)
    browser.find_element(By.ID, "new-password").send_keys("secret123")
    browser.find_element(By.ID, "new-name").send_keys("Console User", Keys.ENTER)
    added = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#main .ok").text)
    uid = added.split()[-1].rstrip(".")
    assert auth.get_user(uid).email == email

    browser.find_element(By.ID, "user-search").send_keys(email, Keys.ENTER)
    click(browser, f'button[aria-label="Edit {uid}"]')
    claims = find(browser, "#edit-claims")
    claims.clear()
    claims.send_keys('{"sub": "someone-else"}')
    browser.find_element(By.XPATH, "//button[text()='Save']").click()
    refused = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#user-editor .error").text)
    assert "FORBIDDEN_CLAIM" in refused, refused
    assert auth.get_user(uid).custom_claims is None
    claims = find(browser, "#edit-claims")
    claims.clear()
    claims.send_keys('{"tier": "gold"}')
    browser.find_element(By.ID, "edit-disabled").click()
    browser.find_element(By.XPATH, "//button[text()='Save']").click()
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#user-editor .ok").text == "Saved.")
    user = auth.get_user(uid)
    assert user.custom_claims == {"tier": "gold"} and user.disabled
    # The list follows live.
    wait(browser, lambda d: '{"tier":"gold"}' in d.find_element(By.CSS_SELECTOR, f'tr[data-user="{uid}"]').text)

    # A Parse _User export: the user keeps its objectId and signs in with its Parse password.
    object_id = f"p{uuid.uuid4().hex[:9]}"
    parse_email = f"{object_id}@example.com"
    export = tmp_path / "_User.json"
    export.write_text(json.dumps({"results": [{
        "objectId": object_id, "username": parse_email, "email": parse_email,
        "_hashed_password": "$2a$10$abcdefghijklmnopqrstuu3wCsxB6/zKn6E0GfSu8Oxcxub8tCTka",
        "createdAt": "2019-05-01T10:00:00.000Z"}]}))
    browser.find_element(By.ID, "import-file").send_keys(str(export))
    browser.find_element(By.ID, "import-format").send_keys("Parse")
    browser.find_element(By.XPATH, "//button[text()='Import']").click()
    wait(browser, lambda d: d.find_element(By.ID, "import-result").text == "Imported 1 user.")
    browser.save_screenshot(str(SHOTS / "authentication.png"))
    status, signed_in, _ = emulator.request(
        "POST", "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake-api-key",
        {"email": parse_email, "password": "parse-password", "returnSecureToken": True})
    assert status == 200 and signed_in["localId"] == object_id, signed_in

    # A file that is not an export: the service's message, nothing imported.
    bad = tmp_path / "bad.json"
    bad.write_text('{"users": "nope"}')
    browser.find_element(By.ID, "import-file").send_keys(str(bad))
    browser.find_element(By.ID, "import-format").send_keys("Firebase")
    browser.find_element(By.XPATH, "//button[text()='Import']").click()
    error = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#import-result .error").text)
    assert "Firebase auth export" in error, error

    assert javascript_errors(browser) == []


def test_mailed_codes_show_on_the_authentication_page_and_their_links_complete_the_action(app, emulator, browser):
    import urllib.parse

    from firebase_admin import auth
    from selenium.webdriver.common.by import By

    email = f"codes-{uuid.uuid4().hex[:6]}@example.com"
    auth.create_user(email=email, password="secret1")
    open_page(browser, emulator, "authentication")
    # Asked for after the page opened: the list follows live.
    link = auth.generate_password_reset_link(email)
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))["oobCode"]
    row = f'tr[data-code="{code}"]'
    wait(browser, lambda d: email in d.find_element(By.CSS_SELECTOR, row).text)
    assert "password reset" in find(browser, row).text
    assert find(browser, f"{row} a").get_attribute("href") == link
    browser.save_screenshot(str(SHOTS / "authentication-codes.png"))

    # The link's page: a form for the new password, which completes the reset.
    browser.get(link)
    type_into(browser, "#newPassword", "from-the-page")
    click(browser, "button[type=submit]")
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "p[role=status]").text
         == "The password has been successfully updated.")
    status, body, _ = emulator.request(
        "POST", "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake-api-key",
        {"email": email, "password": "from-the-page", "returnSecureToken": True})
    assert status == 200, body

    # Used, it is gone from the list; "Clear all" ends the others.
    open_page(browser, emulator, "authentication")
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, row))
    other = auth.generate_email_verification_link(email)
    other_code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(other).query))["oobCode"]
    find(browser, f'tr[data-code="{other_code}"]')
    click(browser, "#oob-codes + .inline button")
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#oob-codes .empty"))
    status, body, _ = emulator.request("POST", "/identitytoolkit.googleapis.com/v1/accounts:update?key=fake-api-key",
                                       {"oobCode": other_code})
    assert status == 400 and body["error"]["message"] == "INVALID_OOB_CODE", body
    assert javascript_errors(browser) == []


def test_a_failed_delivery_is_found_on_the_events_page_and_replayed(browser, tmp_path):
    """On an emulator of its own, with the rehearsal worker's configUpdated deployed: a publish
    described "fail-first" fails its only attempt (retries are off) and becomes a dead letter."""
    import json
    import subprocess

    from conftest import Emulator
    from selenium.webdriver.common.by import By

    binary = os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))
    worker = ROOT / os.environ.get("SCRATCH_PATH", ".build") / "debug" / "rehearsal-worker"
    manifest = tmp_path / "manifest.json"
    subprocess.run([str(worker)], env={"FUNCTIONS_MANIFEST_OUTPUT_PATH": str(manifest)}, check=True)
    process = subprocess.Popen([binary, "emulators:start", "--in-memory", "--port", "0", "--project", PROJECT],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        own = Emulator(process.stdout.readline()[len("ready: "):].strip(), binary)
        status, body, _ = own.request("POST", f"/emulator/v1/projects/{PROJECT}/deployments", {
            "binary": str(worker), "manifest": json.loads(manifest.read_text()), "only": ["configUpdated"]})
        assert status == 200, body
        status, body, _ = own.request("PUT", f"/v1/projects/{PROJECT}/remoteConfig", {
            "parameters": {"a": {"defaultValue": {"value": "1"}}}, "version": {"description": "fail-first"}},
            {"If-Match": "*"})
        assert status == 200, body
        own.wait_for_deliveries()

        # The Functions page: one event, one failed attempt, one dead letter, and the error.
        open_page(browser, own, "functions")
        row = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, 'tr[data-function="configUpdated"]').text)
        assert row.split()[-8:-2] == ["1", "1", "0", "1", "0", "1"], row
        assert "first attempt of" in browser.find_element(By.ID, "function-errors").text
        # Its logs: the worker's line for the failed attempt, at ERROR, with the event.
        failed = wait(browser, lambda d: [row.text for row in d.find_elements(By.CSS_SELECTOR, "#function-logs tr[data-log]")
                                          if "function failed" in row.text])
        assert "ERROR configUpdated" in failed[0] and "first attempt of" in failed[0], failed
        browser.save_screenshot(str(SHOTS / "functions.png"))

        open_page(browser, own, "events")
        replay = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#dead-letters button[data-replay]"))
        assert "first attempt of" in browser.find_element(By.ID, "dead-letters").text
        row = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#event-log tbody tr[data-event]"))
        assert "configUpdated: dead-letter:failed ×1" in row.text, row.text
        browser.find_element(By.ID, "filter-status").send_keys("dead")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#event-log tbody tr[data-event]")) == 1
        browser.save_screenshot(str(SHOTS / "events-dead-letter.png"))
        replay.click()
        # The replay succeeds; the log and the dead letters follow live.
        wait(browser, lambda d: "No dead letters" in d.find_element(By.ID, "dead-letters").text, timeout=60)
        browser.find_element(By.ID, "filter-status").send_keys("succeeded")
        wait(browser, lambda d: "configUpdated: succeeded ×2" in d.find_element(By.ID, "event-log").text, timeout=60)
        browser.find_element(By.CSS_SELECTOR, "#event-log tbody tr[data-event] button").click()
        detail = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#event-log tr.detail").text)
        assert "configUpdated" in detail and "google.firebase.remoteconfig.remoteConfig.v1.updated" in detail, detail
        # Every attempt: the failed first one with its error, then the replayed one.
        outcomes = [row.get_attribute("data-attempt") for row in browser.find_elements(By.CSS_SELECTOR, "#event-log tr[data-attempt]")]
        assert outcomes == ["failed", "succeeded"], outcomes
        assert "first attempt of" in detail and " ms" in detail, detail
        # The event's trace on one timeline: the publish, under it both attempts (the first failed),
        # under each the worker's invocation, and the failed one's log line under it.
        def trace_rows(d):
            rows = d.find_elements(By.CSS_SELECTOR, "#event-log .trace tr[data-span], #event-log .trace tr[data-log-span]")
            return [(row.get_attribute("class") or "", row.text) for row in rows]
        rows = wait(browser, lambda d: (lambda rows: rows if sum("configUpdated" in text.split("\n")[0]
                                                                 and "deliver" not in text for _, text in rows) == 2 else None)(trace_rows(d)),
                    timeout=30)
        names = [text.split("\n")[0] for _, text in rows]
        assert names[0].startswith(f"PUT /v1/projects/{PROJECT}/remoteConfig"), names
        # The replay starts its attempts afresh: both are attempt 1, the first failed, the replay not.
        deliveries = [(kind, text) for kind, text in rows if text.startswith("deliver configUpdated attempt 1")]
        assert ["span-failed" in kind for kind, _ in deliveries] == [True, False], rows
        logs = [text for kind, text in rows if kind == "span-log"]
        assert any("function failed" in text for text in logs), rows
        browser.execute_script("document.querySelector('#event-log .trace').scrollIntoView()")
        browser.save_screenshot(str(SHOTS / "events-trace.png"))
        browser.save_screenshot(str(SHOTS / "events.png"))
        # The Functions page now counts two attempts for the event: one failed, one succeeded.
        open_page(browser, own, "functions")
        row = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, 'tr[data-function="configUpdated"]').text)
        assert row.split()[-8:-2] == ["1", "2", "1", "1", "0", "0"], row
        assert all(token.replace(".", "").isdigit() for token in row.split()[-2:]), row  # p50, p99 in ms
        # The error of the attempt the replay followed is still listed.
        assert "first attempt of" in browser.find_element(By.ID, "function-errors").text
        # The logs follow live: a new publish's "handled" appears without a reload; ERROR and
        # above hides it.
        handled = lambda d: len([row for row in d.find_elements(By.CSS_SELECTOR, "#function-logs tr[data-log]")
                                 if "handled" in row.text])
        before = wait(browser, handled)
        status, body, _ = own.request("PUT", f"/v1/projects/{PROJECT}/remoteConfig", {
            "parameters": {"a": {"defaultValue": {"value": "2"}}}, "version": {"description": "plain"}}, {"If-Match": "*"})
        assert status == 200, body
        wait(browser, lambda d: handled(d) == before + 1, timeout=60)
        browser.find_element(By.ID, "log-severity").send_keys("ERROR")
        wait(browser, lambda d: handled(d) == 0 and "function failed" in d.find_element(By.ID, "function-logs").text)
        assert javascript_errors(browser) == []
    finally:
        browser.get("about:blank")  # its streams end before their emulator does
        process.terminate()
        process.wait(timeout=60)


def test_the_functions_page_lists_schedules_and_runs_one_now(app, emulator, browser):
    from selenium.webdriver.common.by import By

    open_page(browser, emulator, "functions")
    row = find(browser, '[data-schedule="nightlyDigest"]')
    cells = [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")]
    assert cells[:3] == ["nightlyDigest", "0 3 * * *", "UTC"], cells
    assert cells[4] != "–", "the next firing is shown"
    click(browser, '[data-run="nightlyDigest"]')
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '[data-schedule="nightlyDigest"]').text.endswith("ran"))
    browser.save_screenshot(str(SHOTS / "functions-schedules.png"))


def test_the_functions_page_lists_queued_tasks_and_deletes_one(app, emulator, browser):
    from selenium.webdriver.common.by import By

    tasks = f"/projects/{PROJECT}/locations/us-central1/queues/recountLeaderboard/tasks"
    body = {"task": {"name": f"{tasks[1:]}/console-{uuid.uuid4().hex[:8]}", "scheduleTime": "2099-01-01T00:00:00Z",
                     "httpRequest": {"body": "eyJkYXRhIjp7InBsYXllck5hbWUiOiJjb25zb2xlIn19"}}}
    status, created, _ = emulator.request("POST", tasks, body)
    assert status == 200, created
    task_id = created["name"].rsplit("/", 1)[1]
    open_page(browser, emulator, "functions")
    row = find(browser, f'[data-task="{task_id}"]')
    cells = [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")]
    assert cells[:5] == ["recountLeaderboard", task_id, "queued", cells[3], "0"] and "2099" in cells[3], cells
    browser.execute_script("arguments[0].scrollIntoView()", row)
    browser.save_screenshot(str(SHOTS / "functions-task-queues.png"))
    click(browser, f'[data-delete-task="{task_id}"]')
    wait(browser, lambda d: "deleted" in d.find_element(By.CSS_SELECTOR, f'[data-task="{task_id}"]').text)
    status, deleted, _ = emulator.request("GET", f"{tasks}/{task_id}")
    assert status == 200 and deleted["state"] == "deleted", deleted


def test_the_functions_page_shows_a_failed_build_and_the_params(app, emulator, browser):
    """A watched package's failed build is on top, with the compiler's errors, while the deployment
    serves; the params table shows the sample's MAX_SCORE from functions/.env."""
    from selenium.webdriver.common.by import By

    errors = "Sources/AppFunctions/AppFunctions.swift:12:5: error: cannot find 'undefinedName' in scope"
    status, _, _ = emulator.request("PUT", f"/emulator/v1/projects/{PROJECT}/build", {"state": "failed", "output": errors})
    assert status == 200
    try:
        open_page(browser, emulator, "functions")
        banner = find(browser, "#function-build .build-failed")
        assert "The last build failed" in banner.text and errors in banner.text, banner.text
        row = find(browser, '[data-param="MAX_SCORE"]')
        assert [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")] == ["MAX_SCORE", "int", "1000000"]
        browser.save_screenshot(str(SHOTS / "functions-build-failed.png"))
    finally:
        emulator.request("PUT", f"/emulator/v1/projects/{PROJECT}/build", {"state": "deployed"})
    open_page(browser, emulator, "functions")
    find(browser, '[data-param="MAX_SCORE"]')
    assert not browser.find_elements(By.CSS_SELECTOR, "#function-build .build-failed")


def test_every_page_renders_without_javascript_errors_and_is_keyboard_navigable(app, emulator, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    # An app logs an event (as the SDKs' measurement calls do); the Analytics page lists it.
    marker = uuid.uuid4().hex
    status, _, _ = emulator.request("POST", f"/emulator/v1/projects/{PROJECT}/analytics:log?firebase_app_id=1:1:ios:a",
                                    {"app_instance_id": marker, "events": [{"name": "level_up", "params": {"level": 7}}]})
    assert status == 200
    open_page(browser, emulator, "analytics")
    browser.find_element(By.ID, "analytics-instance").send_keys(marker, Keys.ENTER)
    wait(browser, lambda d: "level_up" in d.find_element(By.ID, "analytics-events").text
         and '"level": 7' in d.find_element(By.ID, "analytics-events").text)

    for page in ["overview", "functions", "events", "remote-config", "database", "authentication", "messaging", "analytics"]:
        open_page(browser, emulator, page)
        browser.save_screenshot(str(SHOTS / f"page-{page}.png"))
    open_page(browser, emulator, "overview")
    functions = find(browser, "main").text
    for name in ["pushConfig", "onScoreWrite", "submitScore", "checkSignUp", "onGameScoreDocument", "onScoreSubmitted",
                 "nightlyDigest", "recountLeaderboard"]:
        assert name in functions, functions
    # The sample's Firestore and Pub/Sub functions started Google's emulators; the overview says where.
    assert "Google’s emulators" in functions
    for variable in ["FIRESTORE_EMULATOR_HOST", "PUBSUB_EMULATOR_HOST"]:
        (row,) = [line for line in functions.splitlines() if variable in line]
        assert " running 127.0.0.1:" in row, row

    # The keyboard alone, from a freshly loaded page: the skip link, then the navigation's links.
    from selenium.webdriver.common.action_chains import ActionChains
    browser.refresh()
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text == "Overview")
    ActionChains(browser).send_keys(Keys.TAB).perform()
    assert browser.switch_to.active_element.text == "Skip to the page"
    titles = []
    for _ in range(4):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        titles.append(browser.switch_to.active_element.text)
    assert titles == ["Overview", "Functions", "Events", "Remote Config"], titles
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main h1").text == "Remote Config")

    # A narrow window (a small laptop split in two, a tablet): the navigation moves above the page,
    # and no page is wider than the window (wide tables scroll inside their card).
    browser.set_window_size(760, 900)
    try:
        for page in ["overview", "functions", "events", "remote-config", "database", "authentication", "messaging", "analytics"]:
            open_page(browser, emulator, page)
            widths = browser.execute_script(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            assert widths[0] <= widths[1], (page, widths)
            browser.save_screenshot(str(SHOTS / f"narrow-{page}.png"))
    finally:
        browser.set_window_size(1366, 900)

    assert javascript_errors(browser) == []

