"""`kaldoku web` served for real and played in a real headless Chromium (Debian's
`chromium` and `chromium-driver`, driven by selenium).

The page's terminal is xterm.js drawing on a canvas, so its text is read from the bytes
the page's websocket received, replayed on the pyte terminal emulator at the size the
page asked for: what the page drew, cell for cell. A screenshot shows the same.
"""

from __future__ import annotations

import http.client
import json
import re
import shlex
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


def wait_for(check, what: str, timeout: float = 30.0):
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
        """The process ids of the tabs' games (children of the server)."""
        return [pid for pid in children(self.process.pid) if "kaldoku_tui" in command_line(pid)]

    def stop(self) -> str:
        """Stop the server as Ctrl+C does; what it said on stderr (and in `said`, on stdout)."""
        self.process.send_signal(2)
        try:
            self.said, errors = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.said, errors = self.process.communicate()
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


def command_line(pid: int) -> str:
    """The command line of process `pid` ('' once it has gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def running(pid: int) -> bool:
    """Whether process `pid` is still there and not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid`, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def serving(directory: Path):
    """`kaldoku web` on the game begun in `directory`; on the way out, no traceback
    and no tab's process left behind."""
    if not KALDOKU.exists():
        pytest.skip("needs the installed kaldoku command")
    directory.mkdir(mode=0o700)
    seed_game(directory)
    server = Served(directory)
    yield server
    tabs = server.tabs()
    errors = server.stop()
    assert "Traceback" not in errors, errors
    assert not [pid for pid in tabs if running(pid)], "a tab's process outlived the server"


@pytest.fixture
def served(tmp_path):
    """A server of its own, for a test that plays."""
    yield from serving(tmp_path / "data")


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One server for the tests that only knock at its door."""
    yield from serving(tmp_path_factory.mktemp("shared") / "data")


def test_what_the_server_takes_from_a_browser_is_bounded():
    from kaldoku_tui.web import MAX_COLUMNS, address, bounded, envelope, is_loopback, tab_command

    assert [bounded(v, 80, MAX_COLUMNS) for v in ("120", "0", "-3", "1e9", None, 10**30, "x")] == \
        [120, 1, 1, 80, 80, MAX_COLUMNS, 80]
    assert envelope('["stdin", "a"]') == ["stdin", "a"]
    assert [envelope(t) for t in ("[]", "{}", "7", "nope", "[" * 100_000)] == [None] * 5
    assert [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "example.org")] == \
        [True, True, True, False, False]
    assert address("::1", 8000, "t") == "http://[::1]:8000/?token=t"
    assert tab_command(("--data-dir", "/a b; rm -rf ~")) == \
        f"exec {shlex.quote(sys.executable)} -m kaldoku_tui --data-dir '/a b; rm -rf ~'"


def test_bad_options_and_a_busy_port_are_one_line_errors(tmp_path, capsys):
    import socket

    from kaldoku_tui.cli import main

    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["web", "--port", str(port), "--data-dir", str(data)]) == 2
    busy = capsys.readouterr()
    assert busy.out == ""
    assert re.fullmatch(rf"kaldoku: error: cannot listen on 127\.0\.0\.1 port {port}: .+\n", busy.err)
    assert main(["web", "--port", "70000"]) == 2
    assert "port must be 0 to 65535" in capsys.readouterr().err
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert main(["web", "--port", "0", "--data-dir", str(shared)]) == 2
    unsafe = capsys.readouterr().err
    assert unsafe.count("\n") == 1 and "Traceback" not in unsafe


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

    def shows(self, text: str, timeout: float = 30.0) -> str:
        try:
            return wait_for(lambda: text in self.text() and self.text(), repr(text), timeout)
        except AssertionError as error:
            raise AssertionError(f"{error}; the page shows:\n{self.text()}") from None

    def keys(self, keys: str) -> None:
        self.driver.find_element("css selector", ".xterm-helper-textarea").send_keys(keys)

    def board(self) -> tuple[dict[int, int], dict[int, int]]:
        """Where the board is on the screen: the line of each row's digits and the
        column of each column's, from the row and column numbers around it (none
        before the board is drawn)."""
        lines = self.screen()
        heading = next((i for i, line in enumerate(lines) if re.fullmatch(r"\s*1(\s+\d)+\s*", line)), None)
        if heading is None:
            return {}, {}  # not drawn yet
        columns = {int(m.group()): m.start() for m in re.finditer(r"\d", lines[heading])}
        rows = {int(m.group(1)): i for i, line in enumerate(lines)
                if (m := re.match(r"\s*(\d) [┃|]", line))}
        return rows, columns

    def digits(self) -> list[list[str]]:
        """The board's digits as shown, row by row ('' for an empty cell)."""
        rows, columns = self.board()
        lines = self.screen()
        return [[lines[rows[r]][columns[c]].strip() for c in sorted(columns)] for r in sorted(rows)]

    def background(self, row: int, column: int) -> str:
        """How the middle of the board's cell (1-based) is drawn, its colour and reverse
        video: the cursor's cell differs."""
        rows, columns = self.board()
        char = self.terminal.buffer[rows[row]][columns[column]]
        return f"{char.bg} {char.reverse}"

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


def test_without_the_token_the_page_says_so_and_nothing_starts(shared):
    for path in ("/", "/?token=", "/?token=wrong", f"/?token={shared.token}x"):
        status, body = shared.request("GET", path)
        assert status == 403 and "token" in body, (path, status, body)
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    status, _ = shared.request("GET", "/ws/wrong", upgrade)
    assert status == 403
    assert shared.tabs() == []
    assert shared.request("GET", f"/?token={shared.token}")[0] == 200


def test_bad_paths_and_methods_are_refused_without_a_traceback(shared):
    refused = [
        ("GET", "/nothing-here", 404), ("GET", "/static/../../../etc/passwd", 404),
        ("GET", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd", 404), ("GET", "/static/", 403),
        ("GET", "/download/not-a-key", 404), ("GET", "/ws", 404),
        ("POST", f"/?token={shared.token}", 405), ("DELETE", "/static/js/textual.js", 405),
        ("PUT", "/ws/x", 405), ("BREW", "/", 400),
    ]
    for method, path, expected in refused:
        status, body = shared.request(method, path)
        assert status == expected, (method, path, status, body)
        assert "Traceback" not in body
    status, _ = shared.request("GET", f"/ws/{shared.token}")  # not an upgrade
    assert status == 400
    assert shared.request("GET", "/static/fonts/RobotoMono-VariableFont_wght.ttf")[0] == 200
    assert shared.tabs() == []


def test_what_a_page_should_not_send_is_dropped_and_the_game_goes_on(shared):
    import asyncio

    import aiohttp

    garbage = ["not json", "{}", "[]", "[[[[" * 5000, '["stdin", 5]', '["stdin", "\\ud800"]',
               '["resize", {"width": 1000000000000, "height": "x"}]', '["resize"]', '["ping", {}]',
               '["quit"]', json.dumps(["stdin", "\x1b[999999999999;999999999999R"]),
               # Each of these ended Textual's own input thread: the tab heard no key after.
               json.dumps(["stdin", "\x1b[99999999999999999999u"]),
               json.dumps(["stdin", "\x1b[48;0;0;0;0t\x1b[<0;5;5M"])]

    async def play() -> tuple[str, object]:
        url = f"ws://127.0.0.1:{shared.port}/ws/{shared.token}?width=abc&height=1e99"
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url) as socket:
                shown = b""
                while b"Notes" not in shown:
                    shown += (await socket.receive_bytes(timeout=30))
                for message in garbage:
                    await socket.send_str(message)
                await socket.send_bytes(b"\xff\x00")
                await socket.send_str('["ping", "still there?"]')
                while (message := await socket.receive(timeout=30)).type == aiohttp.WSMsgType.BINARY:
                    pass
                pong = message.data
                await socket.send_str('["stdin", "q"]')  # quit: the tab's process ends, the socket closes
                while (message := await socket.receive(timeout=30)).type == aiohttp.WSMsgType.BINARY:
                    pass
                return pong, message.type

            async with session.ws_connect(url) as socket:
                pass

    pong, end = asyncio.run(play())
    assert json.loads(pong) == ["pong", "still there?"]
    assert end in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    wait_for(lambda: shared.tabs() == [], "the tab's process to end")


def test_tabs_beyond_the_limit_are_refused(tmp_path):
    import asyncio

    import aiohttp

    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    server = Served(data, "--tabs", "1")

    async def two_tabs() -> int:
        url = f"ws://127.0.0.1:{server.port}/ws/{server.token}"
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url) as socket:
                await socket.receive_bytes(timeout=30)  # the first tab's game is there
                assert server.request("GET", f"/?token={server.token}")[0] == 503
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(url)
                return refused.value.status

    try:
        assert asyncio.run(two_tabs()) == 503
        wait_for(lambda: server.tabs() == [], "the tab's process to end")
        # the server frees the tab's place once it has seen the process end, a moment later
        wait_for(lambda: server.request("GET", f"/?token={server.token}")[0] == 200,
                 "the page to be served again")
    finally:
        assert "Traceback" not in server.stop()


def test_a_game_that_cannot_start_closes_its_page(tmp_path):
    import asyncio

    import aiohttp

    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    server = Served(data)
    data.chmod(0o777)  # now unsafe: each tab's kaldoku refuses it

    async def open_tab() -> object:
        url = f"ws://127.0.0.1:{server.port}/ws/{server.token}"
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url) as socket:
                return (await socket.receive(timeout=30)).type

    try:
        assert asyncio.run(open_tab()) in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    finally:
        data.chmod(0o700)
        errors = server.stop()
    assert "can be written by anyone" in server.said and "Traceback" not in server.said + errors


def test_a_message_too_large_ends_the_tab(shared):
    import asyncio

    import aiohttp

    async def flood() -> object:
        url = f"ws://127.0.0.1:{shared.port}/ws/{shared.token}"
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url) as socket:
                await socket.send_str(json.dumps(["stdin", "1" * 100_000]))
                while (message := await socket.receive(timeout=30)).type == aiohttp.WSMsgType.BINARY:
                    pass
                return message.type

    assert asyncio.run(flood()) in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    wait_for(lambda: shared.tabs() == [], "the tab's process to end")


def test_play_in_chromium_reload_resumes_and_a_win_shows(served, browser, tmp_path):
    opened = time.monotonic()
    page = open_page(browser, served.url)
    page.shows("Notes")
    wait_for(lambda: len(page.digits()) == 4, "the 4×4 board")
    to_board = time.monotonic() - opened
    assert "Resumed your game" in page.text()

    assert page.background(3, 2) == page.background(4, 4)
    page.click_cell(3, 2)  # the mouse selects row 3, column 2 (its cell lights up); a key fills it
    wait_for(lambda: page.background(3, 2) != page.background(4, 4), "the cursor at the click")
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
