"""`python -m kaldoku_tui` runs the `kaldoku` command."""

import sys

from kaldoku_tui.cli import main

sys.exit(main())
