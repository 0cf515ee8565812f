#!/usr/bin/env bash
# Set up (if needed) and run runner's own checks: ruff, mypy, the layers' import contracts
# (lint-imports, contracts in pyproject.toml) and the whole test suite.
# Usage: bash scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check src tests bench
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
# pytest exits 5 when it ran no test: that is a failure here too.
.venv/bin/pytest "$@"
