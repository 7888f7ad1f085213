"""The engine as a library: its public names, its example, and no UI imports."""

import doctest
import subprocess
import sys

import kaldoku_tui.engine as engine


def test_the_package_example_runs():
    result = doctest.testmod(engine)
    assert result.attempted > 0 and result.failed == 0


def test_every_public_name_is_there():
    missing = [name for name in engine.__all__ if not hasattr(engine, name)]
    assert missing == []


def test_the_engine_imports_neither_textual_nor_rich():
    code = (
        "import sys, kaldoku_tui.engine; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
