//! Issue 29, the archive: `pbem archive DIR` over games of two kinds writes the indexes, a page per game, ply, player and kind; every local link and picture resolves; no address nor secret is anywhere in it; a rerun writes nothing, and a new ply rewrites only its game's pages and the pages that list it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{output_text, pbem, pbem_command, World};
use pbem::games::GameKind;

pub(crate) const ANN: &str = "ann@example.org";
pub(crate) const BOB: &str = "bob@example.org";
const WHITE: &str = "white@example.org";
const BLACK: &str = "black@example.org";
/// A salt a player sent while the window is open: secret until the salts are fixed.
const SALT: &str = "pepper-from-ann-9431";

/// The games of the archive's tests and the d4d6 game still in play.
pub(crate) struct Group {
    pub(crate) w: World,
    /// The seed's first illustrative game, brought in (finished, with the annotator's
    /// comments), after it the seed's three other recorded games.
    pub(crate) postal: i64,
    /// A d4 d6 chess game won by resignation.
    pub(crate) resigned: i64,
    /// A d4 d6 chess game in play, whose seed is the World's fixed one.
    pub(crate) playing: i64,
    /// A d4 d6 chess game in play made by the CLI (its own random seed), ANN's salt sent.
    pub(crate) salted: i64,
}

/// The d4 d6 chess example position, WHITE and BLACK, no salt window.
fn d4d6(w: &mut World) -> i64 {
    let pos = std::fs::read_to_string("tests/data/d4d6/seed_example.pos").unwrap();
    w.game(
        GameKind::D4D6,
        &[("WHITE", WHITE), ("BLACK", BLACK)],
        &[("salt_window", "0")],
        Some(pos.trim()),
        None,
    )
}

/// A short group's games of two kinds.
pub(crate) fn group() -> Group {
    let mut w = World::new();
    // The seed's recorded Dice Rink games (the first with the annotator's comments).
    let mut postal = Vec::new();
    for name in ["game1", "game2", "endgame", "figure4"] {
        let record =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/dicerink/{name}.pgn"));
        let (out, code) = pbem(
            &w,
            &[
                "game",
                "new",
                "dicerink",
                "--from-record",
                record.to_str().unwrap(),
                "--player",
                &format!("A={ANN}"),
                "--player",
                &format!("B={BOB}"),
            ],
        );
        assert_eq!(code, 0, "{out}");
        postal.push(out.lines().next().unwrap().trim().parse::<i64>().unwrap());
    }
    let postal = postal[0];
    let resigned = d4d6(&mut w);
    w.send_scripted(WHITE, resigned, 0, "Fo b6", &[1]);
    w.send_scripted(WHITE, resigned, 0, "b6xc6", &[]);
    w.send_scripted(BLACK, resigned, 1, "RESIGN", &[]);
    let playing = d4d6(&mut w);
    let (out, code) = pbem(
        &w,
        &[
            "game",
            "new",
            "d4d6",
            "--player",
            &format!("WHITE={ANN}"),
            "--player",
            &format!("BLACK={BOB}"),
        ],
    );
    assert_eq!(code, 0, "{out}");
    let salted: i64 = out.lines().next().unwrap().trim().parse().unwrap();
    let status = w
        .send_to_seat(ANN, salted, 0, &format!("SALT {SALT}"))
        .unwrap()
        .status;
    assert_eq!(status, "done");
    Group {
        w,
        postal,
        resigned,
        playing,
        salted,
    }
}

/// Runs `pbem archive DIR`; how many files it says it wrote.
pub(crate) fn archive(w: &World, dir: &Path) -> usize {
    let (out, code) = pbem(w, &["archive", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let words: Vec<&str> = out.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "files").expect(&out);
    words[at - 1].parse().expect(&out)
}

/// Every file under `dir`, by its path relative to it, with its bytes.
pub(crate) fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The values of `attr="..."` in a page.
fn attrs<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let needle = format!("{attr}=\"");
    html.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

fn is_text(p: &Path) -> bool {
    p.extension().is_none_or(|x| x != "png")
}

#[test]
fn the_archive_has_its_pages_and_every_link_resolves() {
    let mut g = group();
    // A player with a name of her own is shown by it; one without, by the address's start.
    let (out, code) = pbem(&g.w, &["player", "name", ANN, "Ann Smith"]);
    assert_eq!(code, 0, "{out}");
    let site = g.w.dir.path().join("site");
    let wrote = archive(&g.w, &site);
    let all = files(&site);
    assert_eq!(wrote, all.len(), "a first run writes every file");
    let plies = g.w.load(g.postal).moves.len();
    for want in [
        "index.html".to_string(),
        "by-game.html".into(),
        "by-player.html".into(),
        "style.css".into(),
        "players/ann-smith.html".into(),
        "players/white.html".into(),
        "kinds/dicerink.html".into(),
        "kinds/dicerink-chart.svg".into(),
        "kinds/d4d6.html".into(),
        format!("games/{}/index.html", g.postal),
        format!("games/{}/game-{}.pgn", g.postal, g.postal),
        format!("games/{}/game-{}.json", g.postal, g.postal),
        format!("games/{}/ply-0.png", g.postal),
        format!("games/{}/ply-{plies}.html", g.postal),
        format!("games/{}/ply-{plies}.png", g.postal),
        format!("games/{}/ply-3.png", g.resigned),
    ] {
        assert!(
            all.contains_key(Path::new(&want)),
            "{want} missing: {:?}",
            all.keys()
        );
    }
    let mut links = 0;
    for (rel, bytes) in all
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|x| x == "html"))
    {
        let html = String::from_utf8(bytes.clone()).unwrap();
        for target in attrs(&html, "href").into_iter().chain(attrs(&html, "src")) {
            assert!(
                !target.contains(':'),
                "{}: {target} leaves the archive",
                rel.display()
            );
            let path = target.split('#').next().unwrap();
            let at = rel.parent().unwrap().join(path);
            let resolved = site.join(&at);
            assert!(
                resolved.is_file(),
                "{}: {target} does not resolve",
                rel.display()
            );
            links += 1;
        }
    }
    assert!(links > 100, "{links}");
    let page = String::from_utf8(all[Path::new(&format!("games/{}/index.html", g.postal))].clone())
        .unwrap();
    // Every comment of the record, the players by name, the step links.
    for words in [
        "mistake, better would have been 1N5 keeping b4 on the back rank",
        "4S5 would have been better",
        "Ann Smith",
        "A won",
        "ply-0.html",
    ] {
        assert!(page.contains(words), "{words}: {page}");
    }
    let ply1 = String::from_utf8(all[Path::new(&format!("games/{}/ply-1.html", g.postal))].clone())
        .unwrap();
    for nav in [
        "ply-0.html\">« first",
        "ply-0.html\">‹ previous",
        "ply-2.html\">next ›",
    ] {
        assert!(ply1.contains(nav), "{nav}: {ply1}");
    }
    // A ply's page lists the plies around it (the game's page lists them all).
    let ply30 =
        String::from_utf8(all[Path::new(&format!("games/{}/ply-30.html", g.postal))].clone())
            .unwrap();
    assert!(plies > 50, "{plies}");
    assert!((1..=plies).all(|k| page.contains(&format!("\"ply-{k}.html\">"))));
    assert!(
        ply30.contains("ply-10.html\">") && ply30.contains("ply-50.html\">"),
        "{ply30}"
    );
    assert!(!ply30.contains("ply-9.html\">"), "{ply30}");
    assert!(!ply1.contains("ply-22.html\">"), "{ply1}");
    assert!(ply1.contains("<ol class=\"plies\" start=\"1\">"), "{ply1}");
    let kind = String::from_utf8(all[Path::new("kinds/dicerink.html")].clone()).unwrap();
    assert!(kind.contains("Dice Rink: 4 games on record"), "{kind}");
    assert!(kind.contains("dicerink-chart.svg"), "{kind}");
}

#[test]
fn no_address_and_no_secret_is_anywhere_in_the_archive() {
    let g = group();
    let site = g.w.dir.path().join("site");
    archive(&g.w, &site);
    let mut w = g.w;
    let mut secrets: Vec<String> = vec![SALT.to_string()];
    for id in [g.postal, g.resigned, g.playing, g.salted] {
        let loaded = w.load(id);
        secrets.extend(loaded.seats.iter().filter_map(|s| s.token.clone()));
    }
    let salted = w.load(g.salted);
    assert!(!salted.row.salts_fixed, "the salt is still secret");
    secrets.push(salted.row.seed.clone().expect("a seed"));
    for (rel, bytes) in files(&site) {
        let text = String::from_utf8_lossy(&bytes);
        if is_text(&rel) {
            assert!(!text.contains('@'), "{} has an @:\n{text}", rel.display());
        }
        for s in &secrets {
            assert!(
                !text.contains(s.as_str()),
                "{} shows the secret {s}",
                rel.display()
            );
        }
    }
    // The finished game's record names its players and, being over, its seed.
    let record =
        std::fs::read_to_string(site.join(format!("games/{0}/game-{0}.pgn", g.resigned))).unwrap();
    assert!(record.contains("[WHITE \"white\"]"), "{record}");
    assert!(record.contains("[DiceSeed "), "{record}");
}

#[test]
fn a_rerun_writes_nothing_and_a_new_ply_only_its_game_and_the_lists() {
    let mut g = group();
    let site = g.w.dir.path().join("site");
    archive(&g.w, &site);
    let before = files(&site);
    assert_eq!(archive(&g.w, &site), 0, "a rerun writes nothing");
    assert_eq!(files(&site), before);
    g.w.send_scripted(WHITE, g.playing, 0, "Fo b6", &[1]);
    let wrote = archive(&g.w, &site);
    let after = files(&site);
    let changed: Vec<&PathBuf> = after
        .iter()
        .filter(|(p, b)| before.get(*p) != Some(*b))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(wrote, changed.len(), "{changed:?}");
    let game = PathBuf::from(format!("games/{}", g.playing));
    assert!(changed.contains(&&game.join("ply-2.png")), "{changed:?}");
    for p in &changed {
        let listed = p.starts_with(&game)
            || p.starts_with("players")
            || p.starts_with("kinds")
            || p.parent() == Some(Path::new(""));
        assert!(listed, "{} changed", p.display());
    }
    // The pictures of the positions before the new plies are kept as they were drawn.
    assert!(!changed.contains(&&game.join("ply-0.png")), "{changed:?}");
    assert!(!changed
        .iter()
        .any(|p| p.starts_with(format!("games/{}", g.postal))));
}

#[test]
fn serve_keeps_the_archive_current_when_archive_dir_is_set() {
    let g = group();
    let site = g.w.dir.path().join("served");
    let o = pbem_command(g.w.dir.path(), "pbem.sqlite")
        .env("PBEM_ARCHIVE_DIR", &site)
        .args(["serve", "--once"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(site
        .join(format!("games/{}/index.html", g.postal))
        .is_file());
    assert_eq!(archive(&g.w, &site), 0, "serve left it current");
}

/// A long-running serve's keeper notices what changes no ply: a player's new name.
#[test]
fn the_keeper_writes_again_when_a_player_is_renamed() {
    let mut g = group();
    let site = g.w.dir.path().join("kept");
    let mut keeper = pbem::archive::Keeper::new(site.clone());
    assert!(
        keeper.keep(&mut g.w.store).unwrap().is_some(),
        "a first pass writes"
    );
    assert_eq!(
        keeper.keep(&mut g.w.store).unwrap(),
        None,
        "nothing changed"
    );
    let (out, code) = pbem(&g.w, &["player", "name", BOB, "Robert Roe"]);
    assert_eq!(code, 0, "{out}");
    let written = keeper
        .keep(&mut g.w.store)
        .unwrap()
        .expect("the rename is seen");
    assert!(written.written > 0, "{written:?}");
    let page =
        std::fs::read_to_string(site.join(format!("games/{}/index.html", g.postal))).unwrap();
    assert!(page.contains("Robert Roe"), "{page}");
}
