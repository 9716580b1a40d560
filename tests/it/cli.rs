//! The GM's command line as a GM uses it: init, games, plies, export, replay, verify, records round trip for every game.

use crate::lcg::Lcg;
use std::path::Path;
use std::process::{Command, Stdio};

use pbem::games::{AnyGame, GameKind, Options};
use pbem::gm::{self, GameSpec, Secrets};
use pbem::records::{self, Record};
use pbem::store::Store;

use crate::common::{output_text as text, pbem_in as pbem};

#[test]
fn seed_games_replay_and_the_misprint_is_refused() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = pbem(here, &["replay", "--json", "tests/data/dicerink/game1.pgn"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["game"], "dicerink");
    assert_eq!(v["outcome"]["winner"], "A");
    assert_eq!(v["outcome"]["draw"], false);
    let dice = v["position"]["dice"].as_array().unwrap();
    let find = |sq: &str| dice.iter().find(|d| d["square"] == sq).unwrap().clone();
    assert_eq!(
        (find("c4")["top"].clone(), find("c4")["front"].clone()),
        (3.into(), 2.into())
    );
    assert_eq!(
        (find("d4")["top"].clone(), find("d4")["front"].clone()),
        (4.into(), 2.into())
    );
    assert_eq!(
        (find("a3")["top"].clone(), find("a3")["front"].clone()),
        (5.into(), 1.into())
    );
    assert_eq!(
        (find("c2")["top"].clone(), find("c2")["front"].clone()),
        (1.into(), 3.into())
    );

    let o = pbem(here, &["replay", "tests/data/dicerink/game2.pgn"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("B wins"), "{}", text(&o));

    let o = pbem(here, &["replay", "tests/data/dicerink/game1-misprint.pgn"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("ply 27 (6W5): "), "{err}");
    assert!(err.contains("cannot roll west"), "{err}");
}

#[test]
fn a_gm_plays_a_game_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let o = pbem(d, &crate::common::NEW_DICERINK);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "1");
    // Each player was mailed a welcome.
    assert_eq!(std::fs::read_dir(d.join("out")).unwrap().count(), 2);
    let o = pbem(d, &["game", "play", "1", "--seat", "A", "b1 5/4"]);
    assert!(o.status.success(), "{}", text(&o));
    // An illegal ply exits 1 with the reason and changes nothing.
    let o = pbem(d, &["game", "play", "1", "--seat", "B", "b4 4/2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("four different values"), "{}", text(&o));
    let o = pbem(d, &["game", "play", "1", "--seat", "A", "c1 3/2"]);
    assert_eq!(o.status.code(), Some(1), "not A's turn: {}", text(&o));
    let moves = pbem(d, &["game", "moves", "1"]);
    assert_eq!(String::from_utf8_lossy(&moves.stdout).lines().count(), 1);
    let show = pbem(d, &["game", "show", "1"]);
    assert!(text(&show).contains("B to move"), "{}", text(&show));
    let list = pbem(d, &["game", "list"]);
    assert!(text(&list).contains("dicerink"), "{}", text(&list));
    // Export, then replay the export.
    let export = pbem(d, &["export", "1"]);
    assert!(export.status.success());
    std::fs::write(d.join("g.pgn"), &export.stdout).unwrap();
    let o = pbem(d, &["replay", "--json", "g.pgn"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["plies"], 1);
    let o = pbem(d, &["export", "1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["moves"][0]["text"], "b1 5/4");
    // A player by name (none given: the address's local part); the address only when asked.
    assert_eq!(v["seats"]["A"], "alice");
    let o = pbem(d, &["export", "1", "--format", "json", "--with-addresses"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["seats"]["A"], "alice@example.org");
    // Unknown games and seats are explained.
    let o = pbem(d, &["game", "new", "chess", "--player", "A=a@x.org"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("unknown game 'chess'"), "{}", text(&o));
    let o = pbem(d, &["game", "new", "dicerink", "--player", "C=a@x.org"]);
    assert!(text(&o).contains("no seat 'C'"), "{}", text(&o));
    let o = pbem(
        d,
        &["game", "new", "dicerink", "--option", "setup=sideways"],
    );
    assert!(text(&o).contains("setup"), "{}", text(&o));
}

#[test]
fn without_a_database_commands_say_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let o = pbem(dir.path(), &["game", "list"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("pbem init"), "{}", text(&o));
}

/// Every game kind: a game played in the store, exported, replays to the same position.
#[test]
fn export_then_replay_gives_back_the_same_game_for_every_kind() {
    for kind in GameKind::ALL {
        let Ok(probe) = AnyGame::new(*kind, &Options::new()) else {
            panic!("{kind} cannot start");
        };
        for seed in 1..=3u64 {
            let mut store = Store::memory().unwrap();
            let players: Vec<(String, String)> = probe
                .seat_names()
                .iter()
                .map(|s| {
                    (
                        s.to_string(),
                        format!("{}@example.org", s.to_ascii_lowercase()),
                    )
                })
                .collect();
            let spec = GameSpec {
                kind: Some(*kind),
                players,
                ..Default::default()
            };
            let secrets = Secrets {
                tokens: (0..8).map(|i| format!("t{i}")).collect(),
                seed: pbem::dice::Seed::from_bytes([seed as u8; 32]),
            };
            let now = pbem::edge::now();
            let mut rng = Lcg(seed);
            let g = store
                .tx(|tx| {
                    let id =
                        gm::create_game(&mut gm::Gm::new(tx, now, &gm::Quiet), &spec, &secrets)?;
                    for _ in 0..60 {
                        let mut g = pbem::gamelog::load(tx, id)?;
                        if g.game.outcome().is_some() {
                            break;
                        }
                        let legal = g.game.legal_plies();
                        if legal.is_empty() {
                            break;
                        }
                        let ply = legal[rng.pick(legal.len())].clone();
                        let actor = records::implied_actor(&g.game).unwrap();
                        crate::common::play_quietly(tx, &mut g, actor, &ply, now)
                            .map_err(|e| anyhow::anyhow!("{kind}: legal ply: {e}"))?;
                    }
                    pbem::gamelog::load(tx, id)
                })
                .unwrap();
            assert!(!g.moves.is_empty(), "{kind}: no ply was played");
            let export = gm::export(&g).unwrap();
            let again = Record::parse(&export)
                .unwrap()
                .replay()
                .unwrap_or_else(|e| panic!("{kind}: the export does not replay: {e}\n{export}"));
            assert_eq!(again.plies, g.moves.len(), "{kind}");
            assert_eq!(again.game.position_tag(), g.game.position_tag(), "{kind}");
            assert_eq!(again.game.outcome(), g.game.outcome(), "{kind}");
        }
    }
}

#[test]
fn the_tablebase_answers_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "analyze", "d4d6", "--white", "Go", "--black", "Ca", "--json",
    ];
    let o = pbem(dir.path(), &args);
    assert!(o.status.success(), "{}", text(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["max"]["white"], "c5");
    assert_eq!(j["max"]["black"], "d8/S");
    let positions = pbem(
        dir.path(),
        &[&args[..], &["--extremes", "positions"]].concat(),
    );
    let p: serde_json::Value = serde_json::from_slice(&positions.stdout).unwrap();
    assert_eq!(p["positions"], j["positions"]);
    assert_eq!(p["max"]["black"], "d7/E");
    let plain = pbem(dir.path(), &args[..6]);
    assert!(
        text(&plain).contains("max:       +0.965 (White c5, Black d8/S)"),
        "{}",
        text(&plain)
    );
    let bad = pbem(
        dir.path(),
        &["analyze", "d4d6", "--white", "Go", "--black", "Gu"],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad).contains("'Gu' is not a gambling piece"),
        "{}",
        text(&bad)
    );
}

/// A d4 d6 chess game played with its own seeded dice: the export names the die of every roll
/// and replays; `pbem verify` shows each roll with its die and ends with the command that
/// re-checks it with notation/dice_verify.py, which python3 runs and accepts.
#[test]
fn an_exported_record_names_its_dice_and_verify_prints_a_command_python_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let mut store = Store::open(&d.join("g.sqlite"), false).unwrap();
    let spec = GameSpec {
        kind: Some(GameKind::D4D6),
        players: vec![
            ("WHITE".into(), "white@example.org".into()),
            ("BLACK".into(), "black@example.org".into()),
        ],
        // No salt window: the dice roll as soon as a declaration needs them.
        options: [("salt_window".to_string(), "0".to_string())].into(),
        ..Default::default()
    };
    let secrets = Secrets {
        tokens: vec!["t0".into(), "t1".into()],
        seed: pbem::dice::Seed::from_bytes([7; 32]),
    };
    let now = pbem::edge::now();
    let mut rng = Lcg(11);
    let (id, rolls) = store
        .tx(|tx| {
            let id = gm::create_game(&mut gm::Gm::new(tx, now, &gm::Quiet), &spec, &secrets)?;
            // Salts a shell would mangle unquoted: a quote, a space, a `$`, a leading dash.
            tx.set_salts(id, r#"[[0,"white's lucky $pebble"],[1,"-x y"],[1,"ça"]]"#)?;
            for _ in 0..40 {
                let mut g = pbem::gamelog::load(tx, id)?;
                let pbem::games::ToAct::Seat(seat) = g.game.to_act() else {
                    break;
                };
                let legal = g.game.legal_plies();
                let ply = legal[rng.pick(legal.len())].clone();
                let actor = pbem::games::Actor::Seat(seat);
                // No dice given: the GM rolls the game's own seeded dice.
                crate::common::play_quietly(tx, &mut g, actor, &ply, now)?;
            }
            Ok((id, pbem::gamelog::load(tx, id)?.rolls))
        })
        .unwrap();
    assert!(rolls.len() >= 5, "too few rolls: {rolls:?}");
    drop(store);
    let id = id.to_string();
    assert!(pbem(d, &["game", "reveal", &id]).status.success());
    let export = pbem(d, &["export", &id]);
    assert!(export.status.success(), "{}", text(&export));
    let record = String::from_utf8(export.stdout).unwrap();
    assert!(record.contains(&format!("[GameId \"{id}\"]")), "{record}");
    // Issue 27, point 27: each salt a plain tag, as written (a quote escaped, nothing else).
    assert!(
        record.contains("[DiceSalt1 \"white's lucky $pebble\"]\n"),
        "{record}"
    );
    let (sides, value) = rolls[0];
    assert!(
        record.contains(&format!(" roll {value} {{d{sides}}}")),
        "{record}"
    );
    assert_eq!(record.matches(" {d").count(), rolls.len(), "{record}");
    std::fs::write(d.join("g.pgn"), &record).unwrap();

    let replay = pbem(d, &["replay", "--json", "g.pgn"]);
    assert!(replay.status.success(), "{}", text(&replay));
    let v: serde_json::Value = serde_json::from_slice(&replay.stdout).unwrap();
    let parsed = Record::parse(&record).unwrap().replay().unwrap();
    assert_eq!(v["plies"], parsed.plies);

    let verify = pbem(d, &["verify", "g.pgn"]);
    let out = String::from_utf8(verify.stdout.clone()).unwrap();
    assert!(verify.status.success(), "{}", text(&verify));
    for (k, (sides, value)) in rolls.iter().enumerate() {
        let line = format!("roll {k}: d{sides} = {value} ok\n");
        assert!(out.contains(&line), "{out}");
    }
    let n = rolls.len();
    assert!(out.contains(&format!("rolls: {n} of {n} match\n")), "{out}");
    let (_, command) = out
        .split_once("to re-check without pbem (notation/dice.md), run:\n")
        .unwrap_or_else(|| panic!("no command in:\n{out}"));
    let words: Vec<&str> = command.split_whitespace().filter(|w| *w != "\\").collect();
    assert_eq!(
        words[..4],
        [
            "python3",
            "notation/dice_verify.py",
            "--seed",
            "07".repeat(32).as_str()
        ],
        "{command}"
    );
    assert!(command.contains(&format!(" --game-id {id} ")), "{command}");

    if Command::new("python3").arg("--version").output().is_err() {
        println!("SKIPPED: python3 is not installed, the printed command did not run");
        return;
    }
    let run = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let python = text(&run);
    assert!(run.status.success(), "{command}\n{python}");
    assert!(python.contains("commitment: ok\n"), "{python}");
    assert_eq!(python.matches(": ok)\n").count(), n, "{python}");
}

/// The reviewed defect: a Rinoceronte game waited for its facings roll forever. The GM can
/// start it at once, and revealing the seed mid-game tells every player.
#[test]
fn the_gm_starts_a_rinoceronte_game_and_reveals_its_seed_to_everyone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let o = pbem(
        d,
        &[
            "game",
            "new",
            "d4d6",
            "--player",
            "WHITE=w@example.org",
            "--player",
            "BLACK=b@example.org",
            "--option",
            "variant=rinoceronte",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let show = pbem(d, &["game", "show", "1"]);
    assert!(text(&show).contains("RI?"), "{}", text(&show));
    let moves = pbem(d, &["game", "moves", "1"]);
    assert_eq!(
        String::from_utf8_lossy(&moves.stdout).trim(),
        "no moves yet"
    );
    let o = pbem(d, &["game", "start", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("chance: roll "), "{out}");
    assert!(out.contains("the Rinocerontes face WHITE "), "{out}");
    assert!(out.contains("WHITE to move"), "{out}");
    // A second start has nothing to do.
    let o = pbem(d, &["game", "start", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("already fixed"), "{}", text(&o));
    let before = std::fs::read_dir(d.join("out")).unwrap().count();
    let o = pbem(d, &["game", "reveal", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let mails: Vec<String> = std::fs::read_dir(d.join("out"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .filter(|m| m.contains("revealed this game's dice seed"))
        .collect();
    assert_eq!(mails.len(), 2, "one to each player");
    assert_eq!(
        std::fs::read_dir(d.join("out")).unwrap().count(),
        before + 2
    );
}

/// `pbem ingest` run as an MTA runs it, with `stderr` as given; returns the exit code.
fn ingest(
    dir: &Path,
    extra: &[(&str, &str)],
    args: &[&str],
    stderr: Stdio,
    mail: &str,
) -> Option<i32> {
    let mut cmd = crate::common::pbem_command(dir, "g.sqlite");
    cmd.args(args)
        .arg("ingest")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(stderr);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    // Closing our end of a piped stderr at once: every write of the child fails (EPIPE).
    drop(child.stderr.take());
    let mut stdin = child.stdin.take().unwrap();
    // A pbem that gives up before reading its input closes it: not the test's failure.
    let _ = std::io::Write::write_all(&mut stdin, mail.as_bytes());
    drop(stdin);
    child.wait().unwrap().code()
}

fn help_mail(n: usize) -> String {
    format!(
        "From: player{n}@example.net\r\nTo: gm@example.org\r\nSubject: help\r\n\
         Message-ID: <cli-ingest-{n}@example.net>\r\n\r\nHELP\r\n"
    )
}

fn stored(dir: &Path) -> Vec<pbem::store::MessageRow> {
    let mut store = Store::open(&dir.join("g.sqlite"), false).unwrap();
    store.read(|tx| tx.messages(100)).unwrap()
}

/// The MTA's contract: what a retry could cure is 75 (EX_TEMPFAIL), so the MTA keeps the
/// mail: a config that does not parse or cannot be read, a spool that cannot be written.
#[test]
fn ingest_exits_75_when_a_retry_could_cure_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    std::fs::write(d.join("broken.toml"), "address = [\"gm@example.org\"\n").unwrap();
    let mail = help_mail(1);
    let code = ingest(d, &[], &["--config", "broken.toml"], Stdio::null(), &mail);
    assert_eq!(code, Some(75), "a malformed config");
    let code = ingest(d, &[], &["--config", "missing.toml"], Stdio::null(), &mail);
    assert_eq!(code, Some(75), "a config that cannot be read");
    // A file where the spool should be: nothing can be written there.
    std::fs::write(d.join("g.sqlite-spool"), "in the way").unwrap();
    let code = ingest(d, &[], &[], Stdio::null(), &mail);
    assert_eq!(code, Some(75), "a spool that cannot be written");
    crate::common::wait_for_workers(&d.join("g.sqlite"));
    assert!(stored(d).is_empty());
    // Once cured, the same mail is stored.
    std::fs::remove_file(d.join("g.sqlite-spool")).unwrap();
    assert_eq!(ingest(d, &[], &[], Stdio::null(), &mail), Some(0));
    crate::common::wait_for_workers(&d.join("g.sqlite"));
    assert_eq!(stored(d).len(), 1);
}

/// A database held by another writer past the busy timeout does not hold up the MTA:
/// `pbem ingest` never opens it. The mail waits in the spool, safe, and the next pass once
/// the lock is gone stores and answers it.
#[test]
fn ingest_with_the_database_locked_spools_the_mail_for_later() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let conn = rusqlite::Connection::open(d.join("g.sqlite")).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mail = help_mail(2);
    let code = ingest(d, &[("PBEM_BUSY_TIMEOUT", "1s")], &[], Stdio::null(), &mail);
    assert_eq!(code, Some(0), "a locked database");
    crate::common::wait_for_workers(&d.join("g.sqlite"));
    conn.execute_batch("ROLLBACK").unwrap();
    assert!(stored(d).is_empty());
    assert_eq!(pbem::mail::spool::waiting(&d.join("g.sqlite-spool")), 1);
    let listing = String::from_utf8(pbem(d, &["inbox"]).stdout).unwrap();
    assert!(listing.starts_with("1 mail waiting in "), "{listing}");
    assert!(pbem(d, &["serve", "--once"]).status.success());
    let messages = stored(d);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].status, "done");
    assert_eq!(pbem::mail::spool::waiting(&d.join("g.sqlite-spool")), 0);
}

/// A full or closed stderr is no reason to fail: the mail is stored and the exit is 0,
/// even with something to log (here the transport is down, which is logged as a warning).
#[test]
fn ingest_with_stderr_full_or_closed_stores_the_mail_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let down = [
        ("PBEM_TRANSPORT", "sendmail:/nonexistent/sendmail"),
        ("PBEM_LOG", "debug"),
    ];
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let code = ingest(d, &down, &[], Stdio::from(full), &help_mail(1));
    assert_eq!(code, Some(0), "stderr is /dev/full");
    let code = ingest(d, &down, &[], Stdio::piped(), &help_mail(2));
    assert_eq!(code, Some(0), "stderr is a closed pipe");
    // Answering them is the background worker's (whose sendmail is missing: they stay queued).
    crate::common::wait_for_workers(&d.join("g.sqlite"));
    let messages = stored(d);
    assert_eq!(messages.len(), 2);
    assert!(messages.iter().all(|m| m.status == "done"), "{messages:?}");
}

/// What a player asks by mail the GM can do for a seat from the command line, through the
/// same GM operations: draw offers (the others are mailed), resigning, salts.
#[test]
fn the_gm_resigns_offers_draws_and_salts_for_a_seat() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let new = |kind: &str, a: &str, b: &str| {
        let (pa, pb) = (format!("{a}=a@example.org"), format!("{b}=b@example.org"));
        let o = pbem(d, &["game", "new", kind, "--player", &pa, "--player", &pb]);
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    let drawn = new("dicerink", "A", "B");
    let o = pbem(d, &["game", "draw", &drawn, "--seat", "A", "offer"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("draw offered"), "{}", text(&o));
    let o = pbem(d, &["game", "draw", &drawn, "--seat", "B", "accept"]);
    assert!(text(&o).contains("draw agreed"), "{}", text(&o));
    let o = pbem(d, &["game", "show", &drawn]);
    assert!(text(&o).contains("finished"), "{}", text(&o));
    let mails = std::fs::read_dir(d.join("out")).unwrap().count();
    assert!(
        mails >= 5,
        "welcomes, the offer to B, the game over to both: {mails}"
    );

    let resigned = new("dicerink", "A", "B");
    let o = pbem(d, &["game", "resign", &resigned, "--seat", "B"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = pbem(d, &["game", "resign", &resigned, "--seat", "A"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("the game is finished"), "{}", text(&o));

    let salted = new("d4d6", "WHITE", "BLACK");
    let o = pbem(d, &["game", "salt", &salted, "--seat", "WHITE", "a pebble"]);
    assert!(
        text(&o).contains("salt recorded for WHITE (1 of at most"),
        "{}",
        text(&o)
    );
    let o = pbem(d, &["game", "salt", &resigned, "--seat", "A", "a pebble"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("rolls no dice"), "{}", text(&o));
}

/// Press and vacations from the command line, through the same GM operations as the mail.
#[test]
fn the_gm_sends_press_for_a_seat_and_pauses_a_players_clocks() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let mut args = vec!["game", "new", "diptactoe"];
    let players = [
        "BLUE=b@x.org",
        "RED=r@x.org",
        "GREEN=g@x.org",
        "YELLOW=y@x.org",
    ];
    for p in &players {
        args.extend(["--player", p]);
    }
    let o = pbem(d, &args);
    assert!(o.status.success(), "{}", text(&o));
    let before = std::fs::read_dir(d.join("out")).unwrap().count();
    let o = pbem(
        d,
        &[
            "game", "press", "1", "--seat", "BLUE", "--to", "red,RED", "hello",
        ],
    );
    assert!(
        text(&o).contains("press from BLUE sent to RED"),
        "{}",
        text(&o)
    );
    let after = std::fs::read_dir(d.join("out")).unwrap().count();
    assert_eq!(after, before + 1, "one mail to RED, however often named");
    let o = pbem(
        d,
        &[
            "game", "press", "1", "--seat", "BLUE", "--to", "PURPLE", "x",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("no player PURPLE"), "{}", text(&o));
    let o = pbem(d, &["player", "vacation", "R@x.org", "--days", "5"]);
    assert!(
        text(&o).contains("r@x.org: clocks paused until"),
        "{}",
        text(&o)
    );
    let o = pbem(d, &["player", "vacation", "r@x.org", "--days", "90"]);
    assert!(!o.status.success(), "{}", text(&o));
    let o = pbem(d, &["player", "vacation", "r@x.org", "--off"]);
    assert!(text(&o).contains("clocks run again"), "{}", text(&o));
}

#[test]
fn help_lists_every_game_from_the_registry() {
    let dir = tempfile::tempdir().unwrap();
    let o = pbem(dir.path(), &["--help"]);
    assert!(o.status.success(), "{}", text(&o));
    let help = text(&o);
    for kind in GameKind::ALL {
        assert!(
            help.contains(&format!("{:<10} {}", kind.name(), kind.title())),
            "{kind:?} missing from --help:\n{help}"
        );
    }
    // A game's variants are named beside it, from its `variant` option.
    assert!(
        help.contains("variant=basic|primes|strategic|grossmeister|purity"),
        "{help}"
    );
}

/// `pbem ingest` leaves drawing and sending to the sender it starts in the background: with
/// nothing else run, the reply (its board picture made) arrives in the outbox folder, once.
#[test]
fn ingest_starts_a_background_sender_that_sends_the_reply() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let code = ingest(d, &[], &[], Stdio::null(), &help_mail(7));
    assert_eq!(code, Some(0));
    let start = std::time::Instant::now();
    let replies = loop {
        let files = crate::common::out_files(d);
        if !files.is_empty() {
            break files;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "no reply was sent in the background"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert_eq!(replies.len(), 1);
    assert!(
        replies[0].contains("In-Reply-To: <cli-ingest-7@example.net>"),
        "{}",
        replies[0]
    );
    // Its send turn over, the outbox says it went.
    let turn = std::fs::File::open(d.join("g.sqlite-send.lock")).unwrap();
    rustix::fs::flock(&turn, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let mut store = Store::open(&d.join("g.sqlite"), false).unwrap();
    let outbox = store.read(|tx| tx.outbox(None, 10)).unwrap();
    assert!(
        outbox
            .iter()
            .all(|m| m.status == pbem::store::OutboxStatus::Sent),
        "{:?}",
        outbox.iter().map(|m| (m.id, m.status)).collect::<Vec<_>>()
    );
}

/// A bad record exits 1 with the reason, whichever command reads it and whatever is wrong with
/// it (it does not parse, does not replay, is not text); a file that is not there is an
/// error, 2.
#[test]
fn a_bad_record_exits_1_for_replay_verify_and_adjudicate_alike() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let misprint =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dicerink/game1-misprint.pgn");
    std::fs::copy(&misprint, d.join("misprint.pgn")).unwrap();
    std::fs::write(
        d.join("latin1.pgn"),
        b"[Game \"dicerink\"]\n\n1. b1 5/4 \xe9t\xe9\n",
    )
    .unwrap();
    std::fs::write(d.join("garbage.pgn"), "[Game \"no such game\"]\n\n1. x\n").unwrap();
    for file in ["misprint.pgn", "latin1.pgn", "garbage.pgn"] {
        for command in ["replay", "verify"] {
            let o = pbem(d, &[command, file]);
            assert_eq!(o.status.code(), Some(1), "{command} {file}: {}", text(&o));
            assert!(!o.stderr.is_empty(), "{command} {file} says why");
        }
    }
    let o = pbem(d, &["adjudicate", "diptactoe", "latin1.pgn"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("not UTF-8"),
        "{}",
        text(&o)
    );
    let o = pbem(d, &["verify", "missing.pgn"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// An address no mail can be built for is refused when the GM seats it, not found out when
/// the welcome fails to build; an ordinary one (with a +detail) is taken.
#[test]
fn an_address_that_can_never_be_mailed_is_refused_at_the_door() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    for bad in [
        "A=\"<img src=x onerror=alert(1)>\"@example.org",
        "A=\"a b\"@example.org",
        "A=alice@example.org, eve@example.org",
        "A=Alice <alice@example.org>",
        "A=alice@[127.0.0.1]",
    ] {
        let o = pbem(
            d,
            &[
                "game",
                "new",
                "dicerink",
                "--player",
                bad,
                "--player",
                "B=bob@example.org",
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{bad}: {}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("is not a mail address"),
            "{bad}: {}",
            text(&o)
        );
    }
    let o = pbem(d, &["game", "list"]);
    assert!(
        !text(&o).contains("dicerink"),
        "nothing was created: {}",
        text(&o)
    );
    let o = pbem(d, &crate::common::NEW_DICERINK);
    assert!(o.status.success(), "{}", text(&o));
    let o = pbem(
        d,
        &["game", "replace", "1", "--seat", "A", "\"<b>\"@example.org"],
    );
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
}

/// A stranger's escape sequences (a screen clear, a window title, an OSC 52 clipboard write)
/// and bidi overrides reach the GM's terminal escaped, whichever command prints them.
#[test]
fn stored_text_is_printed_with_its_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07";
    let mail = format!(
        "From: eve@example.net\r\nTo: gm@example.org\r\nSubject: hi \x1b[2J{osc52}\r\n\
         Message-ID: <escapes@example.net>\r\n\r\nHELP \x1b]0;owned\x07 \u{202E}evil\r\n"
    );
    let mut store = Store::open(&d.join("g.sqlite"), false).unwrap();
    let (cfg, _) = pbem::config::load(None, &|_| None).unwrap();
    let templates = pbem::template::Templates::load(None).unwrap();
    let ctx = pbem::compose::Ctx::new(&cfg, &templates, pbem::edge::now());
    crate::common::process_raw(&mut store, &ctx, mail.as_bytes(), None);
    drop(store);
    for args in [&["inbox"][..], &["inbox", "show", "1"]] {
        let o = pbem(d, args);
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(
            !out.contains('\x1b') && !out.contains('\x07'),
            "{args:?} printed raw escapes: {out:?}"
        );
        assert!(
            !out.contains('\u{202E}'),
            "{args:?} printed a raw override: {out:?}"
        );
        if args.len() == 3 {
            assert!(
                out.contains("\\u{1b}]52;c;"),
                "the escape is shown, escaped: {out}"
            );
        }
    }
}

/// What `pbem export ID --format json` writes, `replay` and `verify` read as the record it
/// carries, exactly as the record export itself; a JSON file without a record is refused
/// with what to give instead (exit 1).
#[test]
fn replay_and_verify_read_a_json_export_as_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"]).status.success());
    let mut store = Store::open(&d.join("g.sqlite"), false).unwrap();
    let spec = GameSpec {
        kind: Some(GameKind::D4D6),
        players: vec![
            ("WHITE".into(), "white@example.org".into()),
            ("BLACK".into(), "black@example.org".into()),
        ],
        options: [("salt_window".to_string(), "0".to_string())].into(),
        ..Default::default()
    };
    let secrets = Secrets {
        tokens: vec!["t0".into(), "t1".into()],
        seed: pbem::dice::Seed::from_bytes([9; 32]),
    };
    let now = pbem::edge::now();
    let mut rng = Lcg(5);
    let id = store
        .tx(|tx| {
            let id = gm::create_game(&mut gm::Gm::new(tx, now, &gm::Quiet), &spec, &secrets)?;
            for _ in 0..12 {
                let mut g = pbem::gamelog::load(tx, id)?;
                let pbem::games::ToAct::Seat(seat) = g.game.to_act() else {
                    break;
                };
                let legal = g.game.legal_plies();
                let ply = legal[rng.pick(legal.len())].clone();
                let actor = pbem::games::Actor::Seat(seat);
                crate::common::play_quietly(tx, &mut g, actor, &ply, now)?;
            }
            Ok(id)
        })
        .unwrap();
    drop(store);
    let id = id.to_string();
    assert!(pbem(d, &["game", "reveal", &id]).status.success());
    let record = pbem(d, &["export", &id]);
    std::fs::write(d.join("g.pgn"), &record.stdout).unwrap();
    let json = pbem(d, &["export", &id, "--format", "json"]);
    assert!(json.status.success(), "{}", text(&json));
    std::fs::write(d.join("g.json"), &json.stdout).unwrap();
    for command in [&["replay"][..], &["replay", "--json"], &["verify"]] {
        let run = |file: &str| pbem(d, &[command, &[file]].concat());
        let (from_record, from_json) = (run("g.pgn"), run("g.json"));
        assert!(
            from_json.status.success(),
            "{command:?}: {}",
            text(&from_json)
        );
        assert_eq!(text(&from_json), text(&from_record), "{command:?}");
    }
    std::fs::write(d.join("other.json"), r#"{"game": "d4d6", "plies": 3}"#).unwrap();
    for command in ["replay", "verify"] {
        let o = pbem(d, &[command, "other.json"]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("JSON without a \"record\""), "{err}");
        assert!(err.contains("pbem export ID --format json"), "{err}");
    }
}

/// Issue 27, point 20: `config check --connect` names the transport's security in words
/// (STARTTLS), never the program's own name for it ("(StartTls)"); here the port is closed.
#[test]
fn config_check_says_the_transports_security_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("pbem.toml"),
        "transport = \"smtp+starttls://gm:s3cret@127.0.0.1:1\"\n",
    )
    .unwrap();
    let o = crate::common::pbem_command(d, "g.sqlite")
        .env_remove("PBEM_OUTBOX_DIR")
        .args(["--config", "pbem.toml", "config", "check", "--connect"])
        .output()
        .unwrap();
    let out = text(&o);
    assert!(out.contains("127.0.0.1:1 (STARTTLS)"), "{out}");
    assert!(!out.contains("StartTls"), "{out}");
}
