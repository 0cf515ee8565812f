#!/usr/bin/env bash
# Set up (if needed) and run the example project's specs headlessly.
# Usage: bash scripts/example.sh [extra runner run arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/runner run --project examples/todo "$@"
