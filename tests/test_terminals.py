"""Any terminal: colour depth as Textual sees it, forced depths, NO_COLOR, ASCII when needed."""

import io
import os
import signal
import sys
from pathlib import Path

import pytest

from kaldoku_tui.terminal import apply_colors, can_draw_boxes, color_depth, use_ascii


@pytest.fixture(autouse=True)
def pristine_textual(monkeypatch):
    """Undo apply_colors: it writes os.environ and textual.constants."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "auto")
    for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "COLORTERM"):
        monkeypatch.setenv(name, "")  # remembers whether it was set, so undo restores it
        monkeypatch.delenv(name)


@pytest.mark.parametrize("env, depth", [
    ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "truecolor"),
    ({"TERM": "xterm-256color", "COLORTERM": "24bit"}, "truecolor"),
    ({"TERM": "xterm-256color"}, "256"),  # COLORTERM not forwarded over SSH
    ({"TERM": "screen-256color"}, "256"),
    ({"TERM": "xterm"}, "16"),
    ({"TERM": "linux"}, "16"),
    ({"TERM": "xterm-256color", "NO_COLOR": "1"}, "none"),
    ({"TERM": "dumb"}, "none"),
])
def test_detected_depth(env, depth):
    assert color_depth("auto", env) == depth


@pytest.mark.parametrize("choice", ["truecolor", "256", "16", "none"])
def test_forced_depth_wins_over_the_environment(choice):
    env = {"TERM": "xterm", "COLORTERM": "truecolor"}
    apply_colors(choice, env)
    assert color_depth("auto", env) == choice
    assert color_depth(choice, {"TERM": "xterm"}) == choice


def test_auto_changes_nothing():
    env = {"TERM": "xterm"}
    apply_colors("auto", env)
    assert env == {"TERM": "xterm"}


@pytest.mark.parametrize("choice, system, no_color", [
    ("16", "standard", False), ("256", "256", False), ("truecolor", "truecolor", False),
    ("none", "256", True),
])
def test_textual_app_takes_the_forced_depth(monkeypatch, choice, system, no_color):
    from textual.app import App

    monkeypatch.setenv("TERM", "xterm-256color")
    apply_colors(choice)
    app = App()
    assert app.console.color_system == system
    assert app.no_color == no_color


@pytest.mark.parametrize("env, boxes", [
    ({"LANG": "en_US.UTF-8"}, True),
    ({"LANG": "en_GB.utf8"}, True),
    ({"LC_ALL": "de_DE.UTF-8@euro", "LANG": "C"}, True),
    ({}, True),  # no locale at all, as in many containers: assume a UTF-8 terminal
    ({"LANG": "C"}, False),
    ({"LANG": "POSIX"}, False),
    ({"LC_ALL": "C", "LANG": "en_US.UTF-8"}, False),
    ({"LANG": "de_DE.ISO-8859-1"}, False),
    ({"LC_CTYPE": "C.UTF-8", "LANG": "C"}, False),  # Python's coercion of LANG=C
])
def test_box_drawing_follows_the_locale(env, boxes):
    assert can_draw_boxes(env, io.StringIO()) == boxes
    assert use_ascii(False, env) == (not boxes)
    assert use_ascii(True, env)


def test_box_drawing_needs_an_encoding_that_has_it():
    latin1 = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert not can_draw_boxes({"LANG": "en_US.UTF-8"}, latin1)
    assert can_draw_boxes({"LANG": "en_US.UTF-8"}, utf8)


TINY_APP = """
import sys, time
from textual.app import App
from kaldoku_tui.terminal import exit_on_signals

class Tiny(App):
    def on_mount(self):
        open(sys.argv[1] + ".ready", "w").close()

    def on_unmount(self):
        if sys.argv[3] == "hang":
            time.sleep(600)  # a shutdown that never ends, as on a dead terminal

app = Tiny()
exit_on_signals(app, grace=float(sys.argv[2]))
app.run()
open(sys.argv[1] + ".done", "w").write(str(app.return_code))
"""


def test_a_hung_up_terminal_is_written_nowhere_and_a_live_one_is_left_alone():
    from kaldoku_tui.terminal import write_nowhere_if_hung_up

    master, slave = os.openpty()
    spare = os.dup(slave)
    try:
        assert not write_nowhere_if_hung_up((slave, spare))  # still there
        os.close(master)  # the terminal hangs up
        with pytest.raises(OSError):
            os.write(slave, b"x")
        assert write_nowhere_if_hung_up((slave, spare))
        assert os.write(slave, b"x") == os.write(spare, b"x") == 1  # /dev/null takes it
        assert os.path.samestat(os.fstat(slave), os.stat(os.devnull))
    finally:
        os.close(slave)
        os.close(spare)
    reading, writing = os.pipe()
    try:
        assert not write_nowhere_if_hung_up((writing,))  # not a terminal: left alone
    finally:
        os.close(reading)
        os.close(writing)


@pytest.mark.parametrize("how, status", [("SIGTERM", 143), ("hangup", 129)])
def test_app_ends_cleanly_on_sigterm_and_hangup(tmp_path, how, status):
    from sshbox import Terminal, wait_for

    script, marker = tmp_path / "tiny.py", tmp_path / "app"
    script.write_text(TINY_APP)
    done = tmp_path / "app.done"
    # A long grace: this asks for the clean way out, which a loaded machine may slow.
    terminal = Terminal([sys.executable, str(script), str(marker), "30", "clean"])
    try:
        assert wait_for(lambda: (tmp_path / "app.ready").exists()), terminal.screen()
        pid = terminal.pane_pid()
        if how == "SIGTERM":
            os.kill(pid, signal.SIGTERM)
            assert wait_for(done.exists, timeout=60), "the app did not return from run()"
    finally:
        terminal.close()  # tmux closes the pty: the app gets SIGHUP
    assert wait_for(done.exists, timeout=60), "the app did not return from run()"
    assert done.read_text() == str(status)
    assert wait_for(lambda: not os.path.exists(f"/proc/{pid}"), timeout=60), "still running"


def test_a_shutdown_that_hangs_still_ends_after_the_grace(tmp_path):
    from sshbox import Terminal, wait_for

    script = tmp_path / "tiny.py"
    script.write_text(TINY_APP)
    terminal = Terminal([sys.executable, str(script), str(tmp_path / "app"), "0.5", "hang"])
    try:
        assert wait_for(lambda: (tmp_path / "app.ready").exists()), terminal.screen()
        pid = terminal.pane_pid()
        os.kill(pid, signal.SIGTERM)

        def status() -> int | None:
            """The exit status once the process has ended: tmux's, or, while tmux has not
            reaped it yet, the zombie's own (field 52 of /proc/PID/stat, as waitpid gives it)."""
            shown = terminal.tmux("display-message", "-p", "-t", "t", "#{pane_dead_status}").strip()
            if shown:
                return int(shown)
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except FileNotFoundError:
                return None
            return int(fields[-1]) >> 8 if fields[0] == "Z" else None

        assert wait_for(lambda: status() is not None, timeout=60), "the process did not end"
        assert status() == 143 and not (tmp_path / "app.done").exists()
    finally:
        terminal.close()
