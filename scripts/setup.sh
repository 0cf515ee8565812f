#!/usr/bin/env bash
# Set up everything runner needs on a fresh Debian-like machine; safe to run again.
#   - a browser (Debian's chromium when no Chromium/Chrome is found), and Chromium's headless shell
#     (Debian's chromium-headless-shell: headless runs use it, at about 40 % less CPU a test)
#   - a virtual environment in .venv with runner installed (editable) and its test tools
# Usage: bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    say "need root to run: $*"; return 1; fi
}

have_browser() {
  [ -n "${RUNNER_BROWSER:-}" ] && return 0
  for b in chromium chromium-browser google-chrome google-chrome-stable; do
    command -v "$b" >/dev/null 2>&1 && return 0
  done
  ls "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}"/chromium-*/chrome-linux*/chrome >/dev/null 2>&1
}

if ! have_browser; then
  if command -v apt-get >/dev/null 2>&1; then
    say "no Chromium or Chrome found; installing Debian's chromium"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
  else
    say "no Chromium or Chrome found and no apt-get here: install Chromium, or run"
    say "  python -m playwright install chromium    (then run this script again)"
    exit 1
  fi
fi

have_shell() {
  command -v chromium-headless-shell >/dev/null 2>&1 && return 0
  ls "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}"/chromium_headless_shell-*/chrome-*/headless_shell \
    >/dev/null 2>&1
}

# The headless shell is an optimisation: without it headless runs use the full browser.
if [ -z "${RUNNER_BROWSER:-}" ] && ! have_shell && command -v apt-get >/dev/null 2>&1 \
    && apt-cache show chromium-headless-shell >/dev/null 2>&1; then
  say "installing Debian's chromium-headless-shell (headless runs use it)"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium-headless-shell >/dev/null \
    || { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
         as_root apt-get install -y -qq chromium-headless-shell >/dev/null; } \
    || say "could not install chromium-headless-shell; headless runs use the full browser"
fi

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  say "runner needs Python 3.11 or newer; $("$PY" --version 2>&1) was found (set PYTHON=...)"
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.runner-installed
want=$(cat pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "installing runner and its test tools into .venv"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  # pip's notes about this machine's extra package folders are noise here; errors still show.
  .venv/bin/python -m pip install -q -e '.[test]' 2>&1 | { grep -v "^WARNING: Location" || true; }
  [ "${PIPESTATUS[0]}" = 0 ] || { say "installing runner failed (see above)"; exit 1; }
  echo "$want" > "$stamp"
fi
say "ready ($(.venv/bin/runner --version))"
