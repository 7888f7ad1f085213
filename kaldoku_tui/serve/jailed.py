"""A session process's first steps: `python -m kaldoku_tui.serve.jailed MEMORY CPU FILES --
lobby|game ARGS`.

Started by the server in a new session on the player's pty, it makes that pty its
controlling terminal (for SIGWINCH and SIGHUP), takes on its resource limits, and then
runs the lobby (lobby.main) or `kaldoku ARGS`. Done here rather than between fork and exec, which is unsafe in a
server with threads.
"""

import fcntl
import sys
import termios

from kaldoku_tui.serve.game import Jail


def main(argv: list[str]) -> int:
    memory, cpu_seconds, open_files = (int(n) for n in argv[:3])
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    Jail(memory, cpu_seconds, open_files).apply()
    entry, args = argv[4], argv[5:]
    if entry == "lobby":
        from kaldoku_tui.serve.lobby import main as lobby

        return lobby(args)
    from kaldoku_tui.cli import main as kaldoku

    return kaldoku(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
