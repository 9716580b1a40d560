//! Shared test harness: a game master on a temporary store with a fixed clock, fed raw mail.
#![allow(dead_code)]

use chrono::{DateTime, TimeZone, Utc};
use pbem::compose::Ctx;
use pbem::config::{self, Config};
use pbem::dice::{ScriptedDice, Seed};
use pbem::gamelog::{self, Loaded};
use pbem::games::GameKind;
use pbem::gm::{self, GameSpec, Secrets};
use pbem::mailroom::{self, Handled};
use pbem::store::{OutboxRow, Store};
use pbem::template::Templates;

/// Where GM notices go in the tests.
pub const ADMIN: &str = "referee@admin.example";

pub struct World {
    pub dir: tempfile::TempDir,
    pub store: Store,
    pub cfg: Config,
    pub templates: Templates,
    pub now: DateTime<Utc>,
    /// Mail already looked at by `new_mail`.
    pub seen: usize,
    counter: usize,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let (mut cfg, _) = config::load(None, &|_| None).unwrap();
        cfg.address = "gm@pbem.example".into();
        cfg.admin_address = Some(ADMIN.into());
        cfg.transport = format!("dir:{}", dir.path().join("out").display());
        let store = Store::open(&dir.path().join("pbem.sqlite"), true).unwrap();
        World {
            dir,
            store,
            cfg,
            templates: Templates::load(None).unwrap(),
            now: Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap(),
            seen: 0,
            counter: 0,
        }
    }

    pub fn ctx(&self) -> Ctx<'_> {
        Ctx::new(&self.cfg, &self.templates, self.now)
    }

    /// Creates a game (welcome mails queued), with fixed tokens `tok<seat>g<n>`.
    pub fn game(
        &mut self,
        kind: GameKind,
        players: &[(&str, &str)],
        options: &[(&str, &str)],
        position: Option<&str>,
        move_secs: Option<i64>,
    ) -> i64 {
        self.counter += 1;
        let n = self.counter;
        let spec = GameSpec {
            kind: Some(kind),
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            players: players
                .iter()
                .map(|(s, e)| (s.to_string(), e.to_string()))
                .collect(),
            event: None,
            move_secs,
            position: position.map(str::to_string),
        };
        let secrets = Secrets {
            tokens: (0..8).map(|s| format!("tok{s}g{n}")).collect(),
            seed: Seed::from_bytes([7u8; 32]),
        };
        let now = self.now;
        let cfg = self.cfg.clone();
        let templates = Templates::load(None).unwrap();
        self.store
            .tx(|tx| {
                let ctx = Ctx::new(&cfg, &templates, now);
                gm::create_game(&mut ctx.gm(tx), &spec, &secrets)
            })
            .unwrap()
    }

    pub fn load(&mut self, id: i64) -> Loaded {
        self.store.tx(|tx| gamelog::load(tx, id)).unwrap()
    }

    /// The secret reply address of a seat.
    pub fn seat_address(&mut self, game: i64, seat: usize) -> String {
        let g = self.load(game);
        self.cfg
            .seat_address(g.seat(seat).unwrap().token.as_deref().unwrap())
    }

    /// Delivers raw mail through the whole path (store, then process). `None`: a duplicate.
    pub fn deliver(&mut self, raw: &[u8]) -> Option<Handled> {
        self.deliver_with_dice(raw, None)
    }

    pub fn deliver_with_dice(
        &mut self,
        raw: &[u8],
        dice: Option<&mut ScriptedDice>,
    ) -> Option<Handled> {
        let ctx = Ctx::new(&self.cfg, &self.templates, self.now);
        let dice = dice.map(|d| d as &mut dyn pbem::dice::DiceSource);
        process_raw(&mut self.store, &ctx, raw, dice).pop()?.handled
    }

    /// Mails `body` from `from` to the secret address of a seat (the game's own dice).
    pub fn send_to_seat(
        &mut self,
        from: &str,
        game: i64,
        seat: usize,
        body: &str,
    ) -> Option<Handled> {
        let to = self.seat_address(game, seat);
        let raw = self.mail(from, &to, "Re: move", body);
        self.deliver(&raw)
    }

    /// Mails `body` from `from` to the secret address of a seat with scripted dice, checks
    /// that it was processed and that every scripted roll was used.
    pub fn send_scripted(&mut self, from: &str, game: i64, seat: usize, body: &str, rolls: &[u32]) {
        let to = self.seat_address(game, seat);
        let raw = self.mail(from, &to, &format!("Re: [pbem #{game}] a move"), body);
        let mut d = ScriptedDice::new(rolls.to_vec());
        assert_eq!(
            self.deliver_with_dice(&raw, Some(&mut d)).unwrap().status,
            "done",
            "{body}"
        );
        assert_eq!(d.remaining(), 0, "{body}: not every scripted roll was used");
    }

    /// A plain mail from `from` to `to` with these body lines.
    pub fn mail(&mut self, from: &str, to: &str, subject: &str, body: &str) -> Vec<u8> {
        self.counter += 1;
        format!(
            "From: Player <{from}>\r\nTo: {to}\r\nSubject: {subject}\r\n\
             Message-ID: <t{}.{}@client.example>\r\nDate: Sun, 1 Mar 2026 12:00:00 +0000\r\n\
             MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.counter,
            std::process::id()
        )
        .into_bytes()
    }

    /// Sends a NEW or JOIN mail from `from` to the GM's plain address, then confirms it the way
    /// a player does: a reply from the same address to the confirmation mail's Reply-To.
    /// Returns the handling of the confirmation.
    pub fn ask_and_confirm(&mut self, from: &str, body: &str) -> Handled {
        let raw = self.mail(from, "gm@pbem.example", "request", body);
        assert_eq!(self.deliver(&raw).unwrap().status, "done", "{body}");
        let mail = self.new_mail();
        let ask = only_to(&mail, from);
        let confirm_to = ask
            .reply_to
            .clone()
            .filter(|r| r.contains("+confirm-"))
            .unwrap_or_else(|| panic!("no confirmation address: {ask:#?}"));
        assert!(ask.body.contains("To confirm, reply"), "{}", ask.body);
        let raw = self.mail(from, &confirm_to, &format!("Re: {}", ask.subject), "yes");
        self.deliver(&raw).unwrap()
    }

    /// Outgoing mail queued since the last call, oldest first.
    pub fn new_mail(&mut self) -> Vec<OutboxRow> {
        let mut rows = self.store.tx(|tx| tx.outbox(None, i64::MAX)).unwrap();
        rows.reverse();
        let fresh = rows.split_off(self.seen.min(rows.len()));
        self.seen += fresh.len();
        fresh
    }

    /// A Dice Rink game with `a` at A and `b` at B, its welcomes looked at: its id.
    pub fn rink(&mut self, a: &str, b: &str) -> i64 {
        let id = self.game(GameKind::DiceRink, &[("A", a), ("B", b)], &[], None, None);
        self.new_mail();
        id
    }

    /// A Dice Rink game between `a` and `b` that B resigns: its id (every mail looked at).
    pub fn rink_won_by_a(&mut self, a: &str, b: &str) -> i64 {
        let id = self.rink(a, b);
        self.send_to_seat(b, id, 1, "RESIGN").unwrap();
        self.new_mail();
        id
    }

    /// Makes a game's record unreadable behind pbem's back (every ply's text broken): a
    /// replay of it fails, so a test shows what is read without replaying it.
    pub fn break_record(&self, game: i64) {
        let db = rusqlite::Connection::open(self.dir.path().join("pbem.sqlite")).unwrap();
        let broken = db
            .execute(
                "UPDATE moves SET text = 'no such move' WHERE game_id = ?1",
                [game],
            )
            .unwrap();
        assert!(broken >= 1, "game {game} has no plies to break");
    }

    /// Sends every mail due now through the sender to a relay that records them: the mails
    /// as the relay took them (envelope and bytes), in order.
    pub fn send_due(&mut self) -> Vec<pbem::mail::outbound::RawMail> {
        let recorder = pbem::mail::outbound::Recorder::default();
        let transport = pbem::mail::outbound::Transport::Memory(recorder.clone());
        let now = self.now;
        pbem::sender::drain(&mut self.store, &self.cfg, &transport, &|| now).unwrap();
        recorder.taken()
    }

    /// Runs the timers at the current clock.
    pub fn timers(&mut self) -> usize {
        let ctx = Ctx::new(&self.cfg, &self.templates, self.now);
        pbem::timers::run(&mut self.store, &ctx).unwrap()
    }
}

/// Processes one raw mail through the mailroom's one entry, as a source hands it in.
pub fn process_raw(
    store: &mut Store,
    ctx: &Ctx,
    raw: &[u8],
    dice: Option<&mut dyn pbem::dice::DiceSource>,
) -> Vec<mailroom::Processed> {
    let batch = mailroom::Batch::Raw {
        raws: &[raw],
        step: &mut |_| Ok(()),
    };
    mailroom::process(store, ctx, batch, dice).unwrap()
}

/// Plays one ply with nobody told (a test's set-up), the game rolling its own seeded dice;
/// the rules' refusal is an error.
pub fn play_quietly(
    tx: &pbem::store::Tx,
    g: &mut Loaded,
    actor: pbem::games::Actor,
    ply: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    gm::play(&mut gm::Gm::new(tx, now, &gm::Quiet), g, actor, ply, None)?
        .map(drop)
        .map_err(|e| anyhow::anyhow!("{ply} refused: {e}"))
}

/// Whether `body` says `needle`, wherever the mail's lines break (long lines are refilled, so
/// a sentence may be split across lines): every run of white space reads as one space.
pub fn says(body: &str, needle: &str) -> bool {
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    flat(body).contains(&flat(needle))
}

/// The one mail to `to` among `mail`, failing clearly otherwise.
pub fn only_to<'a>(mail: &'a [OutboxRow], to: &str) -> &'a OutboxRow {
    let to_them: Vec<&OutboxRow> = mail.iter().filter(|m| m.to_addr == to).collect();
    assert_eq!(
        to_them.len(),
        1,
        "expected one mail to {to}, got: {:#?}",
        mail.iter()
            .map(|m| (&m.to_addr, &m.kind))
            .collect::<Vec<_>>()
    );
    to_them[0]
}

/// The `pbem` binary run as a GM runs it in `dir`: the database `dir/<db>`, the outbox folder
/// `dir/out`, the address gm@example.org, and nothing of the caller's own pbem settings (no
/// config file, Maildir, transport or armed fault). Callers add what their test needs.
pub fn pbem_command(dir: &std::path::Path, db: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_pbem"));
    cmd.current_dir(dir)
        .env("PBEM_DB", dir.join(db))
        .env("PBEM_OUTBOX_DIR", dir.join("out"))
        .env("PBEM_ADDRESS", "gm@example.org")
        .env_remove("PBEM_CONFIG")
        .env_remove("PBEM_MAILDIR")
        .env_remove("PBEM_TRANSPORT")
        .env_remove("PBEM_FAULT");
    cmd
}

/// `pbem ARGS` on a World's own database (`pbem.sqlite` in its folder): its output, stdout
/// then stderr, and its exit code.
pub fn pbem(w: &World, args: &[&str]) -> (String, i32) {
    let o = pbem_command(w.dir.path(), "pbem.sqlite")
        .args(args)
        .output()
        .unwrap();
    (output_text(&o), o.status.code().unwrap_or(-1))
}

/// Runs `pbem ARGS` in `dir` (database `g.sqlite`, mail into `out/`) and waits for it.
pub fn pbem_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    pbem_command(dir, "g.sqlite").args(args).output().unwrap()
}

/// What a finished `pbem` printed, stdout then stderr.
pub fn output_text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The mails a `dir:` transport wrote into `dir/out` (a name starting with a dot is a file not
/// yet in place, which is not mail); none when the folder is not there yet.
pub fn out_files(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir.join("out"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

/// `pbem game new` of a Dice Rink game between alice@example.org (A) and bob@example.org (B).
pub const NEW_DICERINK: [&str; 7] = [
    "game",
    "new",
    "dicerink",
    "--player",
    "A=alice@example.org",
    "--player",
    "B=bob@example.org",
];

/// Waits until no background worker that `pbem ingest` started on the database `db` runs
/// (`pbem --db DB ingest-worker`): then every mail it stored is answered and the
/// replies are sent. `pbem ingest` goes on only once its worker's program is loading, and by
/// then /proc names the worker's executable, though its command line may still read empty
/// for a moment: a pbem process with an empty command line counts as a worker starting. So
/// waiting after `ingest` returned never misses one.
pub fn wait_for_workers(db: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt as _;
    let db = db.as_os_str().as_bytes();
    let pbem = std::fs::canonicalize(env!("CARGO_BIN_EXE_pbem")).unwrap();
    let running = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| std::fs::read_link(e.path().join("exe")).is_ok_and(|x| x == pbem))
            .any(|e| {
                std::fs::read(e.path().join("cmdline")).is_ok_and(|c| {
                    let args: Vec<&[u8]> = c.split(|b| *b == 0).collect();
                    c.is_empty()
                        || (args.contains(&b"ingest-worker".as_slice()) && args.contains(&db))
                })
            })
    };
    let start = std::time::Instant::now();
    while running() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "a background worker on {} still runs after a minute",
            String::from_utf8_lossy(db)
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Sends SIGTERM to a running `pbem serve` and waits up to `limit` for it to exit; its exit
/// status, or a failure that says so and shows `log()` (the daemon's log, if the test has one).
pub fn sigterm_and_wait(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    log: impl Fn() -> String,
) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status();
    assert!(killed.unwrap().success(), "kill -TERM {pid}");
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            start.elapsed() < limit,
            "serve did not stop on SIGTERM within {limit:?}; its log:\n{}",
            log()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// `pbem ingest` of `mail` on `d`'s database `g.sqlite`, with `env` set, as an MTA pipes it:
/// its exit code.
pub fn ingest_in(d: &std::path::Path, mail: &str, env: &[(&str, &str)]) -> Option<i32> {
    use std::io::Write;
    let mut cmd = pbem_command(d, "g.sqlite");
    cmd.envs(env.iter().copied());
    let mut child = cmd
        .arg("ingest")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(mail.as_bytes())
        .unwrap();
    child.wait().unwrap().code()
}

/// A temporary folder with a fresh database, `g.sqlite` (`pbem init`).
pub fn initialised() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = pbem_command(dir.path(), "g.sqlite").arg("init").status();
    assert!(status.unwrap().success());
    dir
}
