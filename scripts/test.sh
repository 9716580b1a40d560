#!/usr/bin/env bash
# The test command: installs and starts the loopback mail server (OpenSMTPD + Dovecot) for the
# end-to-end test, runs every test, and stops the server again.
#   scripts/test.sh [cargo test arguments]
# Without root (no apt-get) the mail-server and install tests say they are skipped and the rest
# still run.
set -euo pipefail
cd "$(dirname "$0")/.."

stack=0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  scripts/mailstack.sh install
  scripts/mailstack.sh start
  stack=1
  trap 'scripts/mailstack.sh stop >/dev/null 2>&1 || true' EXIT
  eval "$(scripts/mailstack.sh env)"
  export PBEM_REQUIRE_MAILSTACK=1
else
  echo "test.sh: not root, so no local mail server: the mail-server and install tests are skipped" >&2
fi

cargo test --all-targets "$@"
cargo test --doc "$@"
[ "$stack" = 1 ] && echo "test.sh: mail-server end-to-end test ran against $PBEM_MAILSTACK_ROOT"
exit 0
