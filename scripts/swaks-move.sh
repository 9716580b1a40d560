#!/bin/bash
# Sends one mail through the local stack (scripts/mailstack.sh) with swaks, as a player would.
#
#   usage: scripts/swaks-move.sh [options] TO SUBJECT [BODY|-]
#     -f FROM         sender (default gm@localhost); as a player: -f alice@localhost
#     -a USER         submit with STARTTLS + AUTH on 2587 as USER (password USER-secret);
#                     without -a the mail goes in plain over 2525 (no AUTH), like an MTA would
#     -i MESSAGE-ID   Message-ID to set (default: swaks makes one)
#     -r PARENT-ID    In-Reply-To / References parent, to answer a game mail
#     -H 'Name: val'  any further header (repeatable)
#   BODY '-' or missing: read the body from stdin.
#
#   example: scripts/swaks-move.sh -f alice@localhost -a alice gm@localhost "g1 move" "e2-e4"
#            printf 'join g1\n' | scripts/swaks-move.sh -f bob@localhost gm@localhost "join"
set -euo pipefail

ROOT=${PBEM_MAILSTACK_ROOT:-/var/tmp/pbem-mailstack}
from=gm@localhost
auth_user=""
headers=()
while getopts "f:a:i:r:H:" opt; do
  case $opt in
    f) from=$OPTARG ;;
    a) auth_user=$OPTARG ;;
    i) headers+=(--header "Message-Id: $OPTARG") ;;  # swaks spelling, so it replaces its own
    r) headers+=(--header "In-Reply-To: $OPTARG" --header "References: $OPTARG") ;;
    H) headers+=(--header "$OPTARG") ;;
    *) sed -n '2,16p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
to=$1
subject=$2
body=${3:--}
[ "$body" = - ] && body=$(cat)

connection=(--server 127.0.0.1 --port "${PBEM_MAILSTACK_SMTP_PORT:-2525}")
if [ -n "$auth_user" ]; then
  connection=(--server 127.0.0.1 --port "${PBEM_MAILSTACK_SUBMISSION_PORT:-2587}"
    --tls --tls-verify --tls-ca-path "$ROOT/etc/cert.pem" --tls-sni localhost
    --auth PLAIN --auth-user "$auth_user" --auth-password "$auth_user-secret")
fi

# --silent 2: quiet unless something fails; a UTF-8 subject is sent as 8-bit, which
# mail-parser and Dovecot accept (RFC 6532).
exec swaks --silent 2 "${connection[@]}" --from "$from" --to "$to" \
  --header "Subject: $subject" --header "Content-Type: text/plain; charset=utf-8" \
  "${headers[@]}" --body "$body"
