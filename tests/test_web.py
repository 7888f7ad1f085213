"""`kaldoku web` served for real and played in a real headless Chromium (Debian's
`chromium` and `chromium-driver`, driven by selenium).

The page's terminal is xterm.js drawing on a canvas, so its text is read from the bytes
the page's websocket received, replayed on the pyte terminal emulator at the size the
page asked for: what the page drew, cell for cell. A screenshot shows the same.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pyte
import pytest

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
KALDOKU = Path(sys.executable).parent / "kaldoku"

RECORD_SOCKET = """
window.received = [];
window.pageSize = null;
const Native = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const socket = new Native(url, protocols);
  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string") window.received.push(...new Uint8Array(event.data));
  });
  const send = socket.send.bind(socket);
  socket.send = (data) => {
    const message = JSON.parse(data);
    if (message[0] === "resize") window.pageSize = message[1];
    send(data);
  };
  return socket;
};
window.WebSocket.prototype = Native.prototype;
"""
"""Run in the page before its own script: keeps what the websocket brings, and the
terminal size the page tells the server."""


def wait_for(check, what: str, timeout: float = 15.0):
    """`check()`'s first true value, polled until `timeout`."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return found


def seed_game(directory: Path) -> None:
    """A game of the 4×4 example begun in `directory`, for the page to resume."""
    from kaldoku_tui.engine.formats import read_keen
    from kaldoku_tui.engine.kinds import GameKind
    from kaldoku_tui.session.store import open_store

    puzzle = read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)
    store = open_store(directory)
    store.new_game(puzzle, GameKind.of(puzzle))
    store.close()


class Served:
    """`kaldoku web --port 0` running in a process of its own."""

    def __init__(self, directory: Path, *options: str) -> None:
        self.process = subprocess.Popen(
            [str(KALDOKU), "web", "--port", "0", "--data-dir", str(directory), *options],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        line = self.process.stdout.readline()
        match = re.search(r"open (http://\S+)", line)
        assert match, f"no address printed: {line!r} {self.process.stderr.read()!r}"
        self.url = match.group(1)
        parts = urlsplit(self.url)
        self.host, self.port = parts.hostname, parts.port
        self.token = parts.query.removeprefix("token=")

    def request(self, method: str, path: str, headers: dict | None = None) -> tuple[int, str]:
        """A plain HTTP request, the path sent as it is: the status and the body."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read().decode("utf-8", "replace")
        connection.close()
        return response.status, body

    def tabs(self) -> list[int]:
        """The process ids of the tabs' games (children of the server, through a shell
        if the shell did not hand over to them)."""
        found = children(self.process.pid)
        return [grand for pid in found for grand in (children(pid) or [pid])
                if "kaldoku_tui" in Path(f"/proc/{grand}/cmdline").read_bytes().decode(errors="replace")]

    def stop(self) -> str:
        """Stop the server as Ctrl+C does; what it said on stderr."""
        self.process.send_signal(2)
        try:
            _, errors = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, errors = self.process.communicate()
        return errors


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid`, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


@pytest.fixture
def served(tmp_path):
    if not KALDOKU.exists():
        pytest.skip("needs the installed kaldoku command")
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    seed_game(data)
    server = Served(data)
    yield server
    tabs = server.tabs()
    errors = server.stop()
    assert "Traceback" not in errors, errors
    assert not [pid for pid in tabs if Path(f"/proc/{pid}").exists()], "a tab's process outlived the server"


def kaldoku(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(KALDOKU), *args], capture_output=True, text=True, timeout=30)


def test_bad_options_and_a_busy_port_are_one_line_errors(tmp_path):
    if not KALDOKU.exists():
        pytest.skip("needs the installed kaldoku command")
    import socket

    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = kaldoku("web", "--port", str(port), "--data-dir", str(data))
    assert busy.returncode == 2 and busy.stdout == ""
    assert re.fullmatch(rf"kaldoku: error: cannot listen on 127\.0\.0\.1 port {port}: .+\n", busy.stderr)
    bad_port = kaldoku("web", "--port", "70000")
    assert bad_port.returncode == 2 and "port must be 0 to 65535" in bad_port.stderr
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    unsafe = kaldoku("web", "--port", "0", "--data-dir", str(shared))
    assert unsafe.returncode == 2 and unsafe.stderr.count("\n") == 1 and "Traceback" not in unsafe.stderr


def test_listening_beyond_this_machine_warns(tmp_path):
    if not KALDOKU.exists():
        pytest.skip("needs the installed kaldoku command")
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    server = Served(data, "--host", "0.0.0.0")
    errors = server.stop()
    assert "warning: listening on 0.0.0.0" in errors
    assert f":{server.port}/?token=" in server.url


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("needs Chromium: Debian's chromium and chromium-driver (.ci/run installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1000,760",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SOCKET})
    driver.get_log("performance")  # the browser's own start page: not ours
    yield driver
    driver.quit()


class Page:
    """The game's page in one browser tab: its screen as text, keys and clicks."""

    def __init__(self, driver) -> None:
        self.driver = driver
        self.handle = driver.current_window_handle
        self.terminal: pyte.Screen | None = None
        self.stream = pyte.ByteStream()

    def focus(self) -> None:
        self.driver.switch_to.window(self.handle)

    def reload(self) -> None:
        """Load the page again: a new terminal, a new websocket, a new app process."""
        self.driver.refresh()
        self.terminal = None
        self.stream = pyte.ByteStream()

    def screen(self) -> list[str]:
        """The lines the page's terminal shows (none before it has its size)."""
        size, received = self.driver.execute_script(
            "return [window.pageSize, window.received.splice(0)]")
        if self.terminal is None and size:
            self.terminal = pyte.Screen(size["width"], size["height"])
            self.stream.attach(self.terminal)
        if self.terminal is None:
            return []
        if size and (size["width"], size["height"]) != (self.terminal.columns, self.terminal.lines):
            self.terminal.resize(size["height"], size["width"])
        self.stream.feed(bytes(received))
        return self.terminal.display

    def text(self) -> str:
        return "\n".join(self.screen())

    def shows(self, text: str, timeout: float = 15.0) -> str:
        try:
            return wait_for(lambda: text in self.text() and self.text(), repr(text), timeout)
        except AssertionError as error:
            raise AssertionError(f"{error}; the page shows:\n{self.text()}") from None

    def keys(self, keys: str) -> None:
        self.driver.find_element("css selector", ".xterm-helper-textarea").send_keys(keys)

    def board(self) -> tuple[dict[int, int], dict[int, int]]:
        """Where the board is on the screen: the line of each row's digits and the
        column of each column's, from the row and column numbers around it."""
        lines = self.screen()
        heading = next(i for i, line in enumerate(lines) if re.fullmatch(r"\s*1(\s+\d)+\s*", line))
        columns = {int(m.group()): m.start() for m in re.finditer(r"\d", lines[heading])}
        rows = {int(m.group(1)): i for i, line in enumerate(lines)
                if (m := re.match(r"\s*(\d) [┃|]", line))}
        return rows, columns

    def digits(self) -> list[list[str]]:
        """The board's digits as shown, row by row ('' for an empty cell)."""
        rows, columns = self.board()
        lines = self.screen()
        return [[lines[rows[r]][columns[c]].strip() for c in sorted(columns)] for r in sorted(rows)]

    def click_cell(self, row: int, column: int) -> None:
        """Click the middle of the board's cell (1-based) with the mouse."""
        from selenium.webdriver import ActionChains

        rows, columns = self.board()
        lines = self.screen()
        element = self.driver.find_element("css selector", ".xterm-screen")
        width, height = element.size["width"], element.size["height"]
        x = (columns[column] + 0.5) * width / len(lines[0])
        y = (rows[row] + 0.5) * height / len(lines)
        ActionChains(self.driver).move_to_element_with_offset(
            element, int(x - width / 2), int(y - height / 2)).click().perform()


def open_page(driver, url: str, *, new_tab: bool = False) -> Page:
    if new_tab:
        driver.switch_to.new_window("tab")
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SOCKET})
    driver.get(url)
    return Page(driver)


def requests_made(driver) -> list[str]:
    """The URLs the browser asked for since last asked (pages, files, websockets)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
        elif message["method"] == "Network.webSocketCreated":
            urls.append(message["params"]["url"])
    return urls


def play(page: Page, cells: list[tuple[int, int]]) -> None:
    """Type the solution's digits of `cells` (0-based), moving there with h j k l from
    the top left corner."""
    for r, c in cells:
        page.keys("kkkkhhhh" + "j" * r + "l" * c + str(EXAMPLE_SOLUTION[r][c]))


def test_without_the_token_the_page_says_so_and_nothing_starts(served):
    for path in ("/", "/?token=", "/?token=wrong", f"/?token={served.token}x"):
        status, body = served.request("GET", path)
        assert status == 403 and "token" in body, (path, status, body)
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    status, _ = served.request("GET", "/ws/wrong", upgrade)
    assert status == 403
    assert served.tabs() == []
    assert served.request("GET", f"/?token={served.token}")[0] == 200


def test_bad_paths_and_methods_are_refused_without_a_traceback(served):
    refused = [
        ("GET", "/nothing-here", 404), ("GET", "/static/../../../etc/passwd", 404),
        ("GET", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd", 404), ("GET", "/static/", 403),
        ("GET", "/download/not-a-key", 404), ("GET", "/ws", 404),
        ("POST", f"/?token={served.token}", 405), ("DELETE", "/static/js/textual.js", 405),
        ("PUT", "/ws/x", 405), ("BREW", "/", 400),
    ]
    for method, path, expected in refused:
        status, body = served.request(method, path)
        assert status == expected, (method, path, status, body)
        assert "Traceback" not in body
    status, _ = served.request("GET", f"/ws/{served.token}")  # not an upgrade
    assert status == 400
    assert served.request("GET", "/static/fonts/RobotoMono-VariableFont_wght.ttf")[0] == 200
    assert served.tabs() == []


def test_play_in_chromium_reload_resumes_and_a_win_shows(served, browser, tmp_path):
    opened = time.monotonic()
    page = open_page(browser, served.url)
    page.shows("Notes")
    wait_for(lambda: len(page.digits()) == 4, "the 4×4 board")
    to_board = time.monotonic() - opened
    assert "Resumed your game" in page.text()

    page.click_cell(3, 2)  # the mouse selects row 3, column 2; a key fills it
    page.keys(str(EXAMPLE_SOLUTION[2][1]))
    wait_for(lambda: page.digits()[2][1] == str(EXAMPLE_SOLUTION[2][1]), "the clicked cell's digit")
    to_move = time.monotonic() - opened
    play(page, [(0, 0), (0, 1), (1, 0)])
    before = wait_for(lambda: (d := page.digits()) and sum(map(bool, sum(d, []))) == 4 and d,
                      "four digits on the board")
    [tab] = wait_for(served.tabs, "the tab's process")
    memory = rss_mb(tab)

    page.reload()  # the tab's process ends, a new one resumes the game
    page.shows("Resumed your game")
    assert wait_for(lambda: page.digits() == before and page.digits(), "the same board") == before
    wait_for(lambda: served.tabs() and tab not in served.tabs(), "the old tab's process to end")

    play(page, [(r, c) for r in range(4) for c in range(4) if not before[r][c]])
    won = page.shows("Solved!")
    assert "Share code: kp1-" in won
    shot = tmp_path / "won.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000

    browser.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": f"http://127.0.0.1:{served.port}",
        "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    page.keys("c")  # the share code, to the browser's clipboard (OSC 52 through xterm.js)
    copied = wait_for(lambda: browser.execute_async_script(
        "navigator.clipboard.readText().then(arguments[0], () => arguments[0](''))"), "the clipboard")
    assert copied == "kp1-1v3081qdvphba"

    downloads = tmp_path / "downloads"
    browser.execute_cdp_cmd("Browser.setDownloadBehavior",
                            {"behavior": "allow", "downloadPath": str(downloads)})
    assert "d: PDF" in won
    page.keys("d")
    pdf = wait_for(lambda: [p for p in downloads.glob("kaldoku-*.pdf")], "the PDF downloaded")[0]
    from pypdf import PdfReader
    assert "kp1-1v3081qdvphba" in PdfReader(pdf).pages[0].extract_text()

    outside = [url for url in requests_made(browser)
               if urlsplit(url).hostname != "127.0.0.1" and not url.startswith("data:")]
    assert outside == [], outside
    print(f"\nweb: board in {to_board:.2f} s, first move shown at {to_move:.2f} s, "
          f"tab process {memory:.0f} MB RSS, screenshot {shot}")


def test_a_second_tab_takes_the_game_over_and_the_first_is_told(served, browser):
    first = open_page(browser, served.url)
    first.shows("Resumed your game")
    wait_for(lambda: len(first.digits()) == 4, "the board in the first tab")
    second = open_page(browser, served.url, new_tab=True)
    second.shows("Resumed your game")
    wait_for(lambda: len(served.tabs()) == 2, "two tab processes")
    memory = [rss_mb(pid) for pid in served.tabs()]

    first.focus()
    first.keys("1")
    first.shows("another kaldoku")
    assert not any(sum(first.digits(), []))  # taken back: the game is the second tab's now

    second.focus()
    play(second, [(0, 0)])
    wait_for(lambda: second.digits()[0][0] == str(EXAMPLE_SOLUTION[0][0]), "the second tab's move")
    browser.close()
    browser.switch_to.window(first.handle)
    print(f"\nweb: two tabs, {' and '.join(f'{m:.0f} MB' for m in memory)} RSS")
