//! `pbem demo` from the command line: the game to its end, and with `--html DIR` every mail written out as files (its text, its HTML part, the board pictures that HTML shows).

use crate::common::{output_text, pbem_command};
use crate::html_mail::png_size;

#[test]
fn the_demo_writes_each_mail_as_text_html_and_its_pictures() {
    let dir = tempfile::tempdir().unwrap();
    let (db, html) = (dir.path().join("db"), dir.path().join("html"));
    let o = pbem_command(dir.path(), "unused.sqlite")
        .arg("demo")
        .arg("--dir")
        .arg(&db)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(output_text(&o).contains("B wins"), "{}", output_text(&o));
    let names: Vec<String> = std::fs::read_dir(&html)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let pages: Vec<&String> = names.iter().filter(|n| n.ends_with(".html")).collect();
    // Two welcomes, a reply and a report per ply, two game-over mails: each with HTML.
    assert!(pages.len() > 30, "{names:?}");
    for kind in ["welcome", "move_accepted", "turn_report", "game_over"] {
        assert!(
            pages.iter().any(|p| p.contains(&format!("-{kind}-"))),
            "no {kind} in {names:?}"
        );
    }
    for page in &pages {
        // Its text beside it, and every picture it shows a PNG in the folder.
        let stem = page.trim_end_matches(".html");
        assert!(names.contains(&format!("{stem}.txt")), "{stem}: no text");
        let text = std::fs::read_to_string(html.join(page)).unwrap();
        assert!(!text.contains("cid:"), "{page}: {text}");
        let sources: Vec<&str> = text
            .split("src=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap())
            .collect();
        assert_eq!(sources.len(), 1, "{page}: one board picture");
        let png = std::fs::read(html.join(sources[0]))
            .unwrap_or_else(|e| panic!("{page} shows {}: {e}", sources[0]));
        assert!(png_size(&png).0 > 0, "{}", sources[0]);
    }
    let first = std::fs::read_to_string(html.join("01-welcome-alice@example.org.txt")).unwrap();
    assert!(first.starts_with("Your move.\n"), "{first}");
    assert!(first.contains("Welcome to game #1, Dice Rink."), "{first}");
}
