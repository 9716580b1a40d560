//! The HTML part in a real browser (Debian's headless Chromium): each game's turn report (`html_mail::TURN_REPORTS`, a game of the registry each), its picture by file instead of `cid:`, shows the picture at its own width and lays the board's `<pre>` out in aligned columns (measured per character with DOM Ranges; a proportional font, forced, fails that check); at a phone's 400 px the page does not scroll sideways, the picture is shown near its size and a welcome's 64-digit seed wraps; screenshots per game at 640 and 400 px go to `target/screenshots/<game>.png` and `<game>-400.png` for people to look at. Without Chromium the test says it is skipped, and fails instead when `PBEM_REQUIRE_BROWSER` is set (as `scripts/test.sh` does once it installed it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pbem::games::GameKind;

use crate::html_mail::{
    illustrated, parts, png_size, turn_report, welcome, Parts, Play, TURN_REPORTS,
};
use crate::per_game;

/// The most one Chromium run may take (it usually takes a second or two).
const TIMEOUT: Duration = Duration::from_secs(180);

/// How far apart (CSS pixels) two characters of one column may start and still line up.
const TOLERANCE: f64 = 0.5;

/// Measures, once the page has loaded, the picture and the columns of every `<pre>`, and
/// writes the result as JSON into the document's title. With `FORCE_FONT` set, the `<pre>`s
/// get that font first.
const MEASURE: &str = r#"<script>
window.addEventListener('load', function () {
  var out = {img: 0, shown: 0, pres: 0, columns: 0, worst: 0, aligned: false,
             inner: window.innerWidth, scroll: document.documentElement.scrollWidth,
             tokens: 0, token_right: 0, cut: 0};
  // Text boxes other than the board (which scrolls so its columns line up) that hide a
  // line's end.
  document.querySelectorAll('pre[style*="pre-wrap"]').forEach(function (p) {
    if (p.scrollWidth > p.clientWidth) out.cut++;
  });
  document.querySelectorAll('span[style*="overflow-wrap:anywhere"]').forEach(function (t) {
    out.tokens++;
    out.token_right = Math.max(out.token_right, t.getBoundingClientRect().right);
  });
  var img = document.querySelector('img');
  if (img && img.complete) {
    out.img = img.naturalWidth;
    out.shown = img.getBoundingClientRect().width;
  }
  var pres = document.querySelectorAll('pre');
  var plain = true;
  pres.forEach(function (pre) {
    if (typeof FORCE_FONT === 'string') pre.style.fontFamily = FORCE_FONT;
    var node = pre.firstChild;
    if (!node || node.nodeType !== 3 || pre.childNodes.length !== 1) { plain = false; return; }
    out.pres++;
    var text = node.data, xs = [], start = 0, range = document.createRange();
    text.split('\n').forEach(function (line) {
      for (var c = 0; c < line.length; c++) {
        range.setStart(node, start + c);
        range.setEnd(node, start + c + 1);
        var x = range.getBoundingClientRect().left;
        if (xs[c] === undefined) {
          xs[c] = x;
          out.columns = Math.max(out.columns, c + 1);
        } else {
          out.worst = Math.max(out.worst, Math.abs(xs[c] - x));
        }
      }
      start += line.length + 1;
    });
  });
  out.aligned = plain && out.pres > 0 && out.worst <= TOLERANCE;
  document.title = JSON.stringify(out);
  // In a frame (a phone's width, narrower than Chromium's least window), the page around
  // it takes the measure as its title.
  if (window.parent !== window) window.parent.postMessage(document.title, '*');
});
</script>
"#;

/// A proportional font for the `<pre>`s, to show that the measure can fail.
const PROPORTIONAL: &str = "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif";

/// The Chromium to run: `PBEM_CHROMIUM`, else Debian's `/usr/bin/chromium`, if it is there.
fn chromium() -> Option<PathBuf> {
    let exe = match std::env::var_os("PBEM_CHROMIUM").filter(|v| !v.is_empty()) {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from("/usr/bin/chromium"),
    };
    exe.is_file().then_some(exe)
}

/// The Chromium for `test`; without one the test says it is skipped (None), and fails
/// instead when `PBEM_REQUIRE_BROWSER` is set.
pub(crate) fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let exe = chromium();
    if exe.is_none() {
        assert!(
            std::env::var_os("PBEM_REQUIRE_BROWSER").is_none(),
            "PBEM_REQUIRE_BROWSER is set but there is no chromium (or PBEM_CHROMIUM)"
        );
        eprintln!("{test} skipped: no chromium");
    }
    exe
}

/// Runs headless Chromium on `page` with a fresh profile and `args`; returns its standard
/// output, failing with its error output when it fails or takes too long.
fn headless(exe: &Path, page: &Path, args: &[String]) -> String {
    let mut args = args.to_vec();
    args.push("--virtual-time-budget=3000".into());
    headless_run(exe, page, &args).0
}

/// Runs headless Chromium on `page` with a fresh profile and `args` (with the flags that keep
/// it quiet, offline and reading local files); returns (standard output, error output),
/// failing with its error output when it fails or takes too long.
pub(crate) fn headless_run(exe: &Path, page: &Path, args: &[String]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(exe)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--allow-file-access-from-files",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Chromium starts");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Chromium took more than {TIMEOUT:?} on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "Chromium failed ({}) on {}:\n{err}",
        out.status,
        page.display(),
    );
    (String::from_utf8_lossy(&out.stdout).into_owned(), err)
}

/// The title of a dumped DOM, its text unescaped.
pub(crate) fn title(dom: &str) -> String {
    let start = dom.find("<title>").expect("a title") + "<title>".len();
    let end = start + dom[start..].find("</title>").expect("the title's end");
    dom[start..end]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// What the measuring script found.
#[derive(Debug)]
struct Measured {
    img: f64,
    shown: f64,
    pres: f64,
    columns: f64,
    worst: f64,
    aligned: bool,
    /// The viewport's width and the page's (wider: it scrolls sideways).
    inner: f64,
    scroll: f64,
    /// The wrapping spans of long tokens (a seed), and the rightmost edge of any.
    tokens: f64,
    token_right: f64,
    /// Text boxes (not the board's) that hide the end of a line.
    cut: f64,
}

/// A desktop client's width, and a phone's (CSS pixels).
const DESKTOP: u32 = 640;
const PHONE: u32 = 400;

/// Writes `html` with the measuring script (and the forced font, if any) beside the picture,
/// loads it in a window `width` pixels wide and reads the measure from the title.
fn measure(exe: &Path, dir: &Path, html: &str, font: Option<&str>, width: u32) -> Measured {
    let mut script = format!("<script>var TOLERANCE = {TOLERANCE};</script>\n");
    if let Some(f) = font {
        script.push_str(&format!("<script>var FORCE_FONT = {f:?};</script>\n"));
    }
    script.push_str(MEASURE);
    let at = html.rfind("</body>").expect("a body");
    let page = dir.join(if font.is_some() {
        "forced.html"
    } else {
        "measure.html"
    });
    std::fs::write(&page, format!("{}{script}{}", &html[..at], &html[at..])).unwrap();
    let (page, window) = framed(&page, width);
    let args = ["--dump-dom".to_string(), window];
    let dom = headless(exe, &page, &args);
    let json: serde_json::Value = serde_json::from_str(&title(&dom))
        .unwrap_or_else(|e| panic!("no measure in the title ({e}):\n{dom}"));
    let n = |k: &str| json[k].as_f64().unwrap_or_else(|| panic!("{k} in {json}"));
    Measured {
        img: n("img"),
        shown: n("shown"),
        pres: n("pres"),
        columns: n("columns"),
        worst: n("worst"),
        aligned: json["aligned"].as_bool().expect("aligned"),
        inner: n("inner"),
        scroll: n("scroll"),
        tokens: n("tokens"),
        token_right: n("token_right"),
        cut: n("cut"),
    }
}

/// Chromium's narrowest window: a narrower page is shown in a frame of its width.
pub(crate) const LEAST_WINDOW: u32 = 500;

/// The page to load to show `page` at `width` pixels, and the window size for it: the page
/// itself, or, narrower than Chromium's least window, a page beside it holding it in a frame
/// of that width (top left) that takes the frame's measure as its title.
fn framed(page: &Path, width: u32) -> (PathBuf, String) {
    if width >= LEAST_WINDOW {
        return (page.to_path_buf(), format!("--window-size={width},1400"));
    }
    let name = page.file_name().unwrap().to_string_lossy();
    let host = page.with_file_name(format!("frame-{name}"));
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>-</title></head>\
         <body style=\"margin:0\"><iframe src=\"{name}\" \
         style=\"display:block;width:{width}px;height:1400px;border:0\"></iframe>\
         <script>window.addEventListener('message', function (e) {{ \
         document.title = e.data; }});</script></body></html>\n"
    );
    std::fs::write(&host, html).unwrap();
    (host, format!("--window-size={LEAST_WINDOW},1400"))
}

/// The left `width` columns of a PNG (a frame's part of its page's screenshot).
fn cropped(bytes: &[u8], width: u32) -> Vec<u8> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buf).expect("the PNG's pixels");
    let channels = info.color_type.samples();
    let row = info.width as usize * channels;
    let keep = width as usize * channels;
    let pixels: Vec<u8> = buf[..info.buffer_size()]
        .chunks(row)
        .flat_map(|r| &r[..keep])
        .copied()
        .collect();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, info.height);
    encoder.set_color(info.color_type);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&pixels).unwrap();
    writer.finish().unwrap();
    out
}

/// Where the screenshots go: `target/screenshots/` of the workspace (or of
/// `CARGO_TARGET_DIR`).
fn screenshots() -> PathBuf {
    let target = match option_env!("CARGO_TARGET_DIR") {
        Some(t) => PathBuf::from(t),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
    };
    target.join("screenshots")
}

/// The mail's HTML as a page in `dir`, its picture a file beside it.
fn page(dir: &Path, p: &Parts) -> String {
    std::fs::write(dir.join("board.png"), &p.png).unwrap();
    let cid = format!("cid:{}", p.content_id);
    assert!(p.html.contains(&cid), "{}", p.html);
    p.html.replace(&cid, "board.png")
}

/// Every game's turn report (`html_mail::TURN_REPORTS`, whose own test names a game without
/// one) in a browser; without Chromium, skipped, or failed if `PBEM_REQUIRE_BROWSER` is set.
#[test]
fn every_game_s_turn_report_in_a_browser() {
    let Some(exe) = chromium_or_skip("browser test") else {
        return;
    };
    per_game::run_each("browser", TURN_REPORTS, |game, &play| {
        check(&exe, game, play)
    });
}

/// Shows `game`'s turn report, made by `play`, in Chromium `exe`: the picture loaded and
/// shown, the board's columns aligned (and not with a proportional font), a screenshot.
fn check(exe: &Path, game: GameKind, play: Play) {
    let (mut w, row) = turn_report(play);
    let p = parts(&illustrated(&mut w, row.id));
    let (width, _) = png_size(&p.png);
    let dir = tempfile::tempdir().unwrap();
    let html = page(dir.path(), &p);

    let m = measure(exe, dir.path(), &html, None, DESKTOP);
    eprintln!("{game}, monospace: {m:?}");
    assert_eq!(
        m.img,
        f64::from(width),
        "{game}: the picture did not load: {m:?}"
    );
    assert!(m.shown > 0.0, "{game}: the picture is not shown: {m:?}");
    assert!(
        m.pres >= 1.0 && m.columns > 10.0,
        "{game}: no board measured: {m:?}"
    );
    assert!(
        m.aligned,
        "{game}: the board's columns do not line up: {m:?}"
    );

    let m = measure(exe, dir.path(), &html, Some(PROPORTIONAL), DESKTOP);
    eprintln!("{game}, proportional: {m:?}");
    assert!(
        !m.aligned && m.worst > TOLERANCE,
        "{game}: a proportional font should break the columns: {m:?}"
    );

    let m = measure(exe, dir.path(), &html, None, PHONE);
    eprintln!("{game}, at {PHONE} px: {m:?}");
    fits_a_phone(game, &m);
    assert!(
        m.shown >= LEGIBLE * m.img,
        "{game}: the picture is shrunk to {:.0} of its {} pixels at {PHONE} px",
        m.shown,
        m.img
    );
    screenshot(exe, dir.path(), &html, &game.to_string(), DESKTOP);
    screenshot(exe, dir.path(), &html, &format!("{game}-{PHONE}"), PHONE);
}

/// The least a phone may shrink a picture (shown width over its own) and it still reads:
/// the chessboards' 500 pixels shown at 376 keep squares of 42. Four Dip-Tac-Toe levels in
/// a row, or Siberian's panel beside its board, were shrunk to 0.64.
const LEGIBLE: f64 = 0.7;

/// At a phone's width the page does not scroll sideways, and no text box but the board's
/// hides the end of a line.
fn fits_a_phone(what: impl std::fmt::Display, m: &Measured) {
    assert_eq!(m.cut, 0.0, "{what}: a text box hides a line's end: {m:?}");
    assert_eq!(m.inner, f64::from(PHONE), "{what}: the window: {m:?}");
    assert!(
        m.scroll <= m.inner,
        "{what}: the page is {} pixels wide at {PHONE}: {m:?}",
        m.scroll
    );
}

/// A screenshot of the page `html` in a window `width` pixels wide, to
/// `target/screenshots/<name>.png`.
fn screenshot(exe: &Path, dir: &Path, html: &str, name: &str, width: u32) {
    let plain = dir.join("mail.html");
    std::fs::write(&plain, html).unwrap();
    screenshot_page(exe, &plain, name, width);
}

/// A screenshot of the page at `page` `width` pixels wide (in a frame beside it when
/// narrower than Chromium's least window), to `target/screenshots/<name>.png`.
pub(crate) fn screenshot_page(exe: &Path, page: &Path, name: &str, width: u32) {
    let shots = screenshots();
    std::fs::create_dir_all(&shots).unwrap();
    let shot = shots.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    let (page, window) = framed(page, width);
    let args = [format!("--screenshot={}", shot.display()), window];
    headless(exe, &page, &args);
    let mut bytes = std::fs::read(&shot).unwrap_or_else(|e| panic!("{}: {e}", shot.display()));
    if png_size(&bytes).0 > width {
        bytes = cropped(&bytes, width);
        std::fs::write(&shot, &bytes).unwrap();
    }
    assert_eq!(png_size(&bytes).0, width, "{}", shot.display());
}

/// A welcome with the dice's 64-digit commitment (d4 d6 chess) at a phone's width: the
/// commitment is in its wrapping span, inside the screen, and the page does not scroll
/// sideways (the commitment in a `<pre>` ran off it).
#[test]
fn a_welcome_s_seed_wraps_at_a_phone_s_width() {
    let Some(exe) = chromium_or_skip("browser test") else {
        return;
    };
    let (mut w, row) = welcome();
    let p = parts(&illustrated(&mut w, row.id));
    assert!(p.text.contains("SHA-256 commitment"), "{}", p.text);
    let dir = tempfile::tempdir().unwrap();
    let html = page(dir.path(), &p);
    let m = measure(&exe, dir.path(), &html, None, PHONE);
    eprintln!("welcome at {PHONE} px: {m:?}");
    fits_a_phone("the welcome", &m);
    assert!(m.tokens >= 1.0, "the seed is not in a wrapping span: {m:?}");
    assert!(
        m.token_right <= m.inner,
        "the seed runs off the screen: {m:?}"
    );
    screenshot(&exe, dir.path(), &html, &format!("welcome-{PHONE}"), PHONE);
}
