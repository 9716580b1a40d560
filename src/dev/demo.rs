//! `pbem demo`: a fresh database and mail folder where two players play the seed's Illustrative Game 2 by email.

mod html;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

use crate::config::{self, Config};
use crate::daemon::Daemon;
use crate::edge;
use crate::gamelog;
use crate::games::{GameKind, ToAct};
use crate::gm::{self, GameSpec, Secrets};
use crate::records::Record;
use crate::store::Store;

/// The seed's Illustrative Game 2, the demo's script.
const GAME2: &str = include_str!("../../tests/data/dicerink/game2.pgn");

/// Runs the demo in `dir` (a new temporary folder when `None`), printing every mail; with
/// `html`, writes every mail's text, HTML part and pictures there too.
pub fn run(dir: Option<&Path>, html: Option<&Path>) -> anyhow::Result<i32> {
    let dir: PathBuf = match dir {
        Some(d) => d.to_path_buf(),
        None => std::env::temp_dir().join(format!("pbem-demo-{}", std::process::id())),
    };
    if dir.join("pbem.sqlite").exists() {
        anyhow::bail!("{} already holds a demo: give another --dir", dir.display());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let outbox = dir.join("outbox");
    let (mut cfg, _) = config::load(None, &|_| None)?;
    cfg.address = "gm@example.org".into();
    cfg.transport = format!("dir:{}", outbox.display());
    cfg.maildir = None;
    cfg.templates_dir = None;
    println!(
        "pbem demo in {}: database pbem.sqlite, mail in outbox/\n",
        dir.display()
    );
    let db_path = dir.join("pbem.sqlite");
    let mut store = Store::open(&db_path, true)?;
    let plies = script()?;
    let spec = GameSpec {
        kind: Some(GameKind::DiceRink),
        players: vec![
            ("A".into(), "alice@example.org".into()),
            ("B".into(), "bob@example.org".into()),
        ],
        event: Some("pbem demo: Dice Rink, Illustrative Game 2".into()),
        ..Default::default()
    };
    let secrets = Secrets::generate(2)?;
    let templates = crate::template::Templates::load(None)?;
    let id = store.tx(|tx| {
        let ctx = crate::compose::Ctx::new(&cfg, &templates, edge::now());
        gm::create_game(&mut ctx.gm(tx), &spec, &secrets)
    })?;
    let mut daemon = Daemon::new(&db_path, store, cfg.clone())?;
    daemon.serve(true)?;
    let mut shown = print_new_mail(&mut daemon, 0)?;
    for (n, ply) in plies.iter().enumerate() {
        let (seat, token, email) = daemon.store.tx(|tx| {
            let g = gamelog::load(tx, id)?;
            let ToAct::Seat(seat) = g.game.to_act() else {
                return Err(anyhow!("the demo game is over early"));
            };
            let row = g.seat(seat).ok_or_else(|| anyhow!("no seat"))?;
            Ok((
                g.game.seat_name(seat).to_string(),
                row.token.clone().unwrap_or_default(),
                row.email.clone().unwrap_or_default(),
            ))
        })?;
        let raw = player_mail(&cfg, &email, &token, id, n, ply);
        println!(">>>>>> {seat} ({email}) mails: {ply}\n");
        daemon.ingest(raw.as_bytes())?;
        daemon.send_now();
        shown = print_new_mail(&mut daemon, shown)?;
    }
    let g = daemon.store.tx(|tx| gamelog::load(tx, id))?;
    println!(
        "Demo over: {}. The record (`pbem --db {} export {id}`):\n\n{}",
        g.game.outcome_text().unwrap_or_else(|| "unfinished".into()),
        dir.join("pbem.sqlite").display(),
        gm::export(&g)?
    );
    if let Some(out) = html {
        let pages = html::write_all(&mut daemon.store, &cfg, out)?;
        println!(
            "The mails as a browser shows them: {} HTML files (with their text and pictures) \
             in {}",
            pages.len(),
            out.display()
        );
    }
    Ok(0)
}

/// The plies of Game 2, canonical.
fn script() -> anyhow::Result<Vec<String>> {
    let record = Record::parse(GAME2).map_err(|e| anyhow!(e))?;
    let done = record.replay().map_err(|e| anyhow!("{e}"))?;
    Ok(done.log.into_iter().map(|(_, t)| t).collect())
}

/// What a player's mail client sends: a reply to the game's last mail, quoting it.
fn player_mail(cfg: &Config, from: &str, token: &str, game: i64, n: usize, ply: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: [pbem #{game}] Dice Rink\r\n\
         Message-ID: <demo.{n}.{from}>\r\nDate: {date}\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{ply}\r\n\r\nOn a day, the GM wrote:\r\n> your move\r\n",
        to = cfg.seat_address(token),
        date = edge::now().to_rfc2822(),
    )
}

/// Prints the mail sent since the `shown`-th, oldest first; returns the new count.
fn print_new_mail(d: &mut Daemon, shown: usize) -> anyhow::Result<usize> {
    let mut rows = d.store.tx(|tx| tx.outbox(None, i64::MAX))?;
    rows.reverse();
    for r in rows.iter().skip(shown) {
        println!(
            "------ mail to {} ({})\nSubject: {}\nReply-To: {}\n\n{}",
            r.to_addr,
            r.kind,
            r.subject,
            r.reply_to
                .as_deref()
                .map(hide_token)
                .unwrap_or_else(|| "-".into()),
            r.body
        );
    }
    Ok(rows.len())
}

/// The demo prints reply addresses with the secret part masked, as a GM should share them.
fn hide_token(addr: &str) -> String {
    match (addr.split_once('+'), addr.split_once('@')) {
        (Some((local, _)), Some((_, domain))) => format!("{local}+<secret>@{domain}"),
        _ => addr.to_string(),
    }
}
