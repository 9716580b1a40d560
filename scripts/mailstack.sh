#!/bin/bash
# The project's local mail server for end-to-end tests (Debian, as root, loopback only).
#
#   usage: scripts/mailstack.sh install | start | stop | restart | status | env
#
#   SMTP         127.0.0.1:2525  OpenSMTPD, plain, no AUTH; any <name>@localhost is delivered
#                                to $ROOT/vmail/<name>/Maildir (catch-all, lower-cased); mail
#                                for remote.test is relayed to the second hop below
#   remote.test  127.0.0.1:2526  OpenSMTPD's second listener, standing for another site: its
#                                only user alice@remote.test is delivered to
#                                $ROOT/vmail/remote.test/alice/Maildir, every other recipient
#                                is refused for good (550), so the first hop writes a delivery
#                                report (DSN) to the mail's envelope sender at once
#   submission   127.0.0.1:2587  Dovecot: STARTTLS + AUTH, relays to :2525
#   submissions  127.0.0.1:2465  Dovecot: implicit TLS + AUTH, relays to :2525
#   IMAP         127.0.0.1:1143  Dovecot (plaintext LOGIN allowed; STARTTLS offered); IMAPS
#                127.0.0.1:1993
#
# Users (IMAP and SMTP AUTH): gm alice bob carol dave imapgm erin frank bouncegm bounceadmin,
# password "<name>-secret". The Maildir game test plays gm with alice and bob; the IMAP tests
# play imapgm with erin and frank (their own folders of imapgm for the others); the bounce
# test plays bouncegm (notices to bounceadmin) with alice@remote.test and
# nosuchuser@remote.test; so that tests running at once never read each other's mail.
# TLS: self-signed certificate for localhost / 127.0.0.1 in $ROOT/etc/cert.pem; clients trust
# that file as their CA. It is CA:FALSE (rustls rejects a CA:TRUE leaf) and carries
# IP:127.0.0.1 in its SAN (rustls checks it when connecting by address).
#
# ROOT is $PBEM_MAILSTACK_ROOT, default /var/tmp/pbem-mailstack. ROOT and all its parents
# must be traversable by the vmail and dovecot users (no mode-0700 mktemp parent), or AUTH
# fails with "Temporary authentication failure". Logs are in $ROOT/run/.
#
# Why it looks like this:
# - OpenSMTPD 6.8 (Debian 12) cannot do TLS with OpenSSL 3, so TLS and AUTH are Dovecot's.
# - No systemd: the daemons run in the foreground (-d / -F), backgrounded, each in its own
#   process group (setsid), output to files so a caller's pipe is not held open.
# - A stopped daemon may stay a zombie (PID 1 may not reap it): stop waits for the ports.
# - There is no unknown local user (localhost is catch-all) and mail for a domain nobody
#   serves is refused in the SMTP dialogue, so neither makes a DSN: hence the second hop,
#   which OpenSMTPD reaches by relaying, as it would reach another site.
# - One OpenSMTPD per machine (fixed queue and control socket): tests share this stack and
#   use distinct mailbox names or unique subjects. Its queue persists across restarts.
set -euo pipefail

ROOT=${PBEM_MAILSTACK_ROOT:-/var/tmp/pbem-mailstack}
SMTP_PORT=${PBEM_MAILSTACK_SMTP_PORT:-2525}
REMOTE_PORT=${PBEM_MAILSTACK_REMOTE_PORT:-2526}
SUBMISSION_PORT=${PBEM_MAILSTACK_SUBMISSION_PORT:-2587}
SUBMISSIONS_PORT=${PBEM_MAILSTACK_SUBMISSIONS_PORT:-2465}
IMAP_PORT=${PBEM_MAILSTACK_IMAP_PORT:-1143}
IMAPS_PORT=${PBEM_MAILSTACK_IMAPS_PORT:-1993}
USERS="gm alice bob carol dave imapgm erin frank bouncegm bounceadmin"
PORTS="$SMTP_PORT $REMOTE_PORT $SUBMISSION_PORT $SUBMISSIONS_PORT $IMAP_PORT $IMAPS_PORT"
PORT_COUNT=$(echo "$PORTS" | wc -w)
REMOTE_DOMAIN=remote.test
REMOTE_USER=alice
PACKAGES="opensmtpd dovecot-imapd dovecot-submissiond swaks libnet-ssleay-perl openssl"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

ports_open_count() {
  local n=0 p
  for p in $PORTS; do port_open "$p" && n=$((n + 1)); done
  echo "$n"
}

install_packages() {
  local missing="" pkg
  for pkg in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
  done
  [ -z "$missing" ] && return 0
  [ "$(id -u)" = 0 ] || { echo "mailstack: installing$missing needs root" >&2; exit 1; }
  export DEBIAN_FRONTEND=noninteractive
  # The package scripts try to start the daemons; without an init system that fails harmlessly.
  apt-get update -qq >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>"${TMPDIR:-/tmp}/pbem-mailstack-apt.err" \
    || { cat "${TMPDIR:-/tmp}/pbem-mailstack-apt.err" >&2; exit 1; }
  echo "mailstack: installed$missing"
}

check_traversable() {
  local dir=$ROOT
  while [ "$dir" != "/" ] && [ -n "$dir" ]; do
    if [ -d "$dir" ] && [ "$(( 0$(stat -c %a "$dir") & 01 ))" = 0 ]; then
      echo "mailstack: $dir is not traversable by other users (mode $(stat -c %a "$dir")); AUTH would fail" >&2
      exit 1
    fi
    dir=$(dirname "$dir")
  done
}

write_config() {
  id vmail >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin vmail
  mkdir -p "$ROOT/etc" "$ROOT/run"
  chmod 755 "$ROOT" "$ROOT/etc" "$ROOT/run"
  check_traversable
  install -d -o vmail -g vmail -m 755 "$ROOT/vmail"
  # Every mailbox exists from the start, owned by the delivering user: the GM's is read as a
  # Maildir before any mail reached it (`pbem config check` wants new/, cur/ and tmp/), and a
  # folder a root test made first would keep OpenSMTPD from delivering there.
  local box
  for box in $USERS; do
    install -d -o vmail -g vmail -m 755 "$ROOT/vmail/$box" "$ROOT/vmail/$box/Maildir" \
      "$ROOT/vmail/$box/Maildir/new" "$ROOT/vmail/$box/Maildir/cur" "$ROOT/vmail/$box/Maildir/tmp"
  done
  local remote=$ROOT/vmail/$REMOTE_DOMAIN/$REMOTE_USER/Maildir
  install -d -o vmail -g vmail -m 755 "$ROOT/vmail/$REMOTE_DOMAIN" "$ROOT/vmail/$REMOTE_DOMAIN/$REMOTE_USER" \
    "$remote" "$remote/new" "$remote/cur" "$remote/tmp"
  if [ ! -f "$ROOT/etc/key.pem" ] || [ ! -f "$ROOT/etc/cert.pem" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj /CN=localhost \
      -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
      -addext "basicConstraints=critical,CA:FALSE" \
      -keyout "$ROOT/etc/key.pem" -out "$ROOT/etc/cert.pem" 2>/dev/null
  fi
  chmod 600 "$ROOT/etc/key.pem"
  chmod 644 "$ROOT/etc/cert.pem"
  local user
  : > "$ROOT/etc/passwd"
  for user in $USERS; do echo "$user:{PLAIN}$user-secret" >> "$ROOT/etc/passwd"; done
  chmod 644 "$ROOT/etc/passwd"   # test passwords only
  echo "@ vmail" > "$ROOT/etc/vusers"   # catch-all: every local part, delivered as user vmail
  # The second hop's rules come first: what arrives on its listener (tag REMOTE) is the other
  # site's, whatever its domain. Its refusal is a 550 in the SMTP dialogue, which the first
  # hop takes as a failure for good and reports at once (a 4xx would be retried for days).
  cat > "$ROOT/etc/smtpd.conf" <<CONF
table vusers file:$ROOT/etc/vusers
listen on 127.0.0.1 port $SMTP_PORT
listen on 127.0.0.1 port $REMOTE_PORT tag REMOTE
action "vmail" maildir "$ROOT/vmail/%{rcpt.user:lowercase|strip}/Maildir" virtual <vusers>
action "remote_box" maildir "$ROOT/vmail/$REMOTE_DOMAIN/%{rcpt.user:lowercase|strip}/Maildir" virtual <vusers>
action "to_remote" relay host smtp://127.0.0.1:$REMOTE_PORT
match tag REMOTE from local for rcpt-to "$REMOTE_USER@$REMOTE_DOMAIN" action "remote_box"
match tag REMOTE from any for any reject
match from local for domain "localhost" action "vmail"
match from local for domain "$REMOTE_DOMAIN" action "to_remote"
CONF
  cat > "$ROOT/etc/dovecot.conf" <<CONF
protocols = imap submission
listen = 127.0.0.1
hostname = localhost
base_dir = $ROOT/run/dovecot
state_dir = $ROOT/run/dovecot-state
log_path = $ROOT/run/dovecot.log
ssl = yes
ssl_cert = <$ROOT/etc/cert.pem
ssl_key = <$ROOT/etc/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
submission_relay_host = 127.0.0.1
submission_relay_port = $SMTP_PORT
first_valid_uid = 1
mail_location = maildir:$ROOT/vmail/%n/Maildir
passdb {
  driver = passwd-file
  args = username_format=%n $ROOT/etc/passwd
}
userdb {
  driver = static
  args = uid=vmail gid=vmail home=$ROOT/vmail/%n
}
service imap-login {
  inet_listener imap {
    port = $IMAP_PORT
  }
  inet_listener imaps {
    port = $IMAPS_PORT
    ssl = yes
  }
}
service submission-login {
  inet_listener submission {
    port = $SUBMISSION_PORT
  }
  inet_listener submissions {
    port = $SUBMISSIONS_PORT
    ssl = yes
  }
}
CONF
}

start() {
  local n
  n=$(ports_open_count)
  if [ "$n" = "$PORT_COUNT" ] && [ -f "$ROOT/run/smtpd.pid" ] && [ -f "$ROOT/run/dovecot.pid" ]; then
    echo "mailstack: already running under $ROOT"
    return 0
  fi
  if [ "$n" != 0 ]; then
    echo "mailstack: some of the ports $PORTS are taken by something else; stop it first" >&2
    exit 1
  fi
  for bin in smtpd dovecot; do
    command -v "$bin" >/dev/null || { echo "mailstack: $bin missing; run '$0 install'" >&2; exit 1; }
  done
  write_config
  smtpd -n -f "$ROOT/etc/smtpd.conf" > "$ROOT/run/smtpd-check.log" 2>&1 \
    || { cat "$ROOT/run/smtpd-check.log" >&2; exit 1; }
  setsid smtpd -d -f "$ROOT/etc/smtpd.conf" > "$ROOT/run/smtpd.log" 2>&1 < /dev/null &
  echo $! > "$ROOT/run/smtpd.pid"
  setsid dovecot -F -c "$ROOT/etc/dovecot.conf" > "$ROOT/run/dovecot.out" 2>&1 < /dev/null &
  echo $! > "$ROOT/run/dovecot.pid"
  for _ in $(seq 1 150); do
    if [ "$(ports_open_count)" = "$PORT_COUNT" ]; then
      echo "mailstack: running under $ROOT (SMTP $SMTP_PORT, $REMOTE_DOMAIN $REMOTE_PORT, submission $SUBMISSION_PORT/$SUBMISSIONS_PORT, IMAP $IMAP_PORT/$IMAPS_PORT)"
      return 0
    fi
    sleep 0.1
  done
  echo "mailstack: did not come up; logs in $ROOT/run/" >&2
  tail -n 5 "$ROOT/run/smtpd.log" "$ROOT/run/dovecot.out" "$ROOT/run/dovecot.log" >&2 2>/dev/null || true
  stop >/dev/null 2>&1 || true
  exit 1
}

stop() {
  local groups="" daemon
  for daemon in smtpd dovecot; do
    if [ -f "$ROOT/run/$daemon.pid" ]; then
      groups="$groups $(cat "$ROOT/run/$daemon.pid")"
      rm -f "$ROOT/run/$daemon.pid"
    fi
  done
  local g
  for g in $groups; do kill -TERM -- "-$g" 2>/dev/null || true; done
  # 'kill -0' cannot tell a zombie from a live daemon: wait for the listeners instead,
  # and after 5 s kill the process groups outright.
  for i in $(seq 1 100); do
    if [ "$(ports_open_count)" = 0 ]; then
      echo "mailstack: stopped"
      return 0
    fi
    if [ "$i" = 50 ]; then
      for g in $groups; do kill -KILL -- "-$g" 2>/dev/null || true; done
    fi
    sleep 0.1
  done
  echo "mailstack: ports still open after stop:$(for p in $PORTS; do port_open "$p" && printf ' %s' "$p"; done)" >&2
  exit 1
}

status() {
  local p state running=0
  for p in $PORTS; do
    if port_open "$p"; then state=open; running=$((running + 1)); else state=closed; fi
    echo "127.0.0.1:$p $state"
  done
  echo "root: $ROOT"
  [ "$running" = "$PORT_COUNT" ]
}

print_env() {
  cat <<ENV
export PBEM_MAILSTACK_ROOT=$ROOT
export PBEM_MAILSTACK_CA=$ROOT/etc/cert.pem
export PBEM_MAILSTACK_SMTP_PORT=$SMTP_PORT
export PBEM_MAILSTACK_REMOTE_PORT=$REMOTE_PORT
export PBEM_MAILSTACK_SUBMISSION_PORT=$SUBMISSION_PORT
export PBEM_MAILSTACK_SUBMISSIONS_PORT=$SUBMISSIONS_PORT
export PBEM_MAILSTACK_IMAP_PORT=$IMAP_PORT
export PBEM_MAILSTACK_IMAPS_PORT=$IMAPS_PORT
ENV
}

case "${1:-}" in
  install) install_packages ;;
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status) status ;;
  env) print_env ;;
  *) echo "usage: $0 install|start|stop|restart|status|env" >&2; exit 2 ;;
esac
