#!/usr/bin/env bash
# The test command: installs and starts the loopback mail server (OpenSMTPD + Dovecot) for the
# end-to-end test, installs headless Chromium for the HTML mail's browser test, runs every
# test, and stops the server again.
#   scripts/test.sh [cargo test arguments]
# Without root (no apt-get) the mail-server, install and browser tests say they are skipped
# and the rest still run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium (and a font for its text) for tests/it/browser.rs.
install_browser() {
  local missing="" pkg
  for pkg in chromium fonts-dejavu-core; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
  done
  [ -z "$missing" ] && return 0
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>"${TMPDIR:-/tmp}/pbem-browser-apt.err" \
    || { cat "${TMPDIR:-/tmp}/pbem-browser-apt.err" >&2; exit 1; }
  echo "test.sh: installed$missing"
}

stack=0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  scripts/mailstack.sh install
  scripts/mailstack.sh start
  stack=1
  trap 'scripts/mailstack.sh stop >/dev/null 2>&1 || true' EXIT
  eval "$(scripts/mailstack.sh env)"
  export PBEM_REQUIRE_MAILSTACK=1
  install_browser
  export PBEM_REQUIRE_BROWSER=1
else
  echo "test.sh: not root, so no local mail server and no Chromium: the mail-server, install" \
    "and browser tests are skipped" >&2
fi

# dkimpy (and PyNaCl for ed25519) from PyPI in a venv under target/, for tests/it/dkim.rs:
# an independent verifier of pbem's DKIM signatures.
install_dkimpy() {
  local venv=target/dkimpy-venv
  if ! "$venv/bin/python" -c 'import dkim, nacl' 2>/dev/null; then
    python3 -m venv "$venv" && "$venv/bin/pip" install -q 'dkimpy[ed25519]' >/dev/null || return 1
    echo "test.sh: installed dkimpy into $venv"
  fi
  export PBEM_DKIMPY_PYTHON="$PWD/$venv/bin/python"
  export PBEM_REQUIRE_DKIMPY=1
}
if command -v python3 >/dev/null 2>&1; then
  install_dkimpy || echo "test.sh: dkimpy could not be installed: the DKIM verifier test is skipped" >&2
fi

cargo test --all-targets "$@"
cargo test --doc "$@"
[ "$stack" = 1 ] && echo "test.sh: mail-server end-to-end test ran against $PBEM_MAILSTACK_ROOT"
exit 0
