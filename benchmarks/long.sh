#!/usr/bin/env bash
# The long run, for a nightly: the whole suite with every fuzz session at full length
# (tests marked `long`) and every Hypothesis test at full depth (the `long` profile).
# Minutes, not seconds; extra pytest arguments pass through (e.g. tests/test_fuzz.py).
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m pytest -q -m "" --hypothesis-profile=long "$@"
