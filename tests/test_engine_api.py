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
        "import sys; from kaldoku_tui.engine import *; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_readme_example_runs(capsys):
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("6:") and "level='hard'" in printed[1]
    assert printed[2].endswith(".")
