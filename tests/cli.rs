//! The GM's command line as a GM uses it: init, games, plies, export, replay, verify, records round trip for every game.

mod lcg;

use lcg::Lcg;
use std::path::Path;
use std::process::{Command, Output};

use pbem::games::{AnyGame, GameKind, Options};
use pbem::gm::{self, GameSpec, Secrets};
use pbem::records::{self, Record};
use pbem::store::Store;

const BIN: &str = env!("CARGO_BIN_EXE_pbem");

fn pbem(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .env("PBEM_DB", dir.join("g.sqlite"))
        .env("PBEM_OUTBOX_DIR", dir.join("out"))
        .env("PBEM_ADDRESS", "gm@example.org")
        .env_remove("PBEM_CONFIG")
        .env_remove("PBEM_MAILDIR")
        .env_remove("PBEM_TRANSPORT")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

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
    let o = pbem(
        d,
        &[
            "game",
            "new",
            "dicerink",
            "--player",
            "A=alice@example.org",
            "--player",
            "B=bob@example.org",
        ],
    );
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
    assert_eq!(v["seats"]["A"], "alice@example.org");
    // Unknown games and seats are explained.
    let o = pbem(d, &["game", "new", "chess", "--player", "A=a@x.org"]);
    assert_eq!(o.status.code(), Some(2));
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
            let now = chrono::Utc::now();
            let mut rng = Lcg(seed);
            let g = store
                .tx(|tx| {
                    let id = gm::create_game(tx, &spec, &secrets, now)?;
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
                        gm::play(tx, &mut g, actor, &ply, now, None, None)?
                            .map_err(|e| anyhow::anyhow!("{kind}: legal ply {ply} refused: {e}"))?;
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
