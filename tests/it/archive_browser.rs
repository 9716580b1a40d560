//! The archive in headless Chromium: every page of a short group's archive loads (in a frame 400 px wide, one page after another) with its pictures and style sheet, logs no console message, and does not scroll sideways; screenshots of the index, a game, a ply and a game kind at 640 and 400 px go to `target/screenshots/archive-*.png`. Skipped without Chromium, failed instead when `PBEM_REQUIRE_BROWSER` is set.

use std::path::Path;

use crate::archive::{archive, files, group};
use crate::browser::{chromium_or_skip, screenshot_page, title, LEAST_WINDOW};

/// A phone's width: a frame inside Chromium's narrowest window.
const PHONE: u32 = 400;

/// Loads each page in turn in a frame `width` pixels wide and writes, for each, its width
/// against the frame's, its pictures that did not load and whether its style sheet applied,
/// as JSON into the title once all are done.
fn host(pages: &[String], width: u32) -> String {
    let list = serde_json::to_string(pages).unwrap();
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>-</title></head>\
         <body style=\"margin:0\"><iframe id=\"f\" \
         style=\"display:block;width:{width}px;height:1200px;border:0\"></iframe>\n<script>\n\
         var pages = {list}, out = [], i = 0, f = document.getElementById('f');\n\
         f.addEventListener('load', function () {{\n\
           var d = f.contentDocument, w = f.contentWindow;\n\
           var imgs = Array.prototype.slice.call(d.images);\n\
           out.push({{page: pages[i], scroll: d.documentElement.scrollWidth, inner: w.innerWidth,\n\
             images: imgs.length,\n\
             broken: imgs.filter(function (m) {{ return !(m.complete && m.naturalWidth > 0); }}).length,\n\
             styled: d.styleSheets.length === 1 && d.styleSheets[0].cssRules.length > 5}});\n\
           i++;\n\
           if (i < pages.length) f.src = pages[i]; else document.title = JSON.stringify(out);\n\
         }});\n\
         f.src = pages[0];\n</script></body></html>\n"
    )
}

/// Runs headless Chromium on `page` with `args`, logging the pages' console to its error
/// output; returns (standard output, error output).
fn run(exe: &Path, page: &Path, args: &[String]) -> (String, String) {
    let mut args = args.to_vec();
    args.extend(
        [
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=600000",
        ]
        .map(String::from),
    );
    crate::browser::headless_run(exe, page, &args)
}

#[test]
fn every_archive_page_loads_cleanly_at_a_phone_s_width() {
    let Some(exe) = chromium_or_skip("archive browser test") else {
        return;
    };
    let g = group();
    let top = g.w.dir.path();
    archive(&g.w, &top.join("site"));
    let pages: Vec<String> = files(&top.join("site"))
        .keys()
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .map(|p| format!("site/{}", p.display()))
        .collect();
    assert!(pages.len() > 20, "{pages:?}");
    let host_page = top.join("all.html");
    std::fs::write(&host_page, host(&pages, PHONE)).unwrap();
    let window = format!("--window-size={LEAST_WINDOW},1200");
    let (dom, log) = run(&exe, &host_page, &["--dump-dom".into(), window]);
    let json: serde_json::Value = serde_json::from_str(&title(&dom))
        .unwrap_or_else(|e| panic!("no measure in the title ({e}):\n{dom}\n{log}"));
    let measured = json.as_array().expect("one measure a page");
    assert_eq!(measured.len(), pages.len(), "{json}");
    for m in measured {
        let n = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k} in {m}"));
        assert_eq!(n("inner"), f64::from(PHONE), "{m}");
        assert!(
            n("scroll") <= n("inner"),
            "scrolls sideways at {PHONE} px: {m}"
        );
        assert_eq!(n("broken"), 0.0, "a picture did not load: {m}");
        assert!(m["styled"].as_bool().unwrap(), "no style sheet: {m}");
    }
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "console messages:\n{}",
        console.join("\n")
    );
    let shots = [
        ("index", "site/index.html".to_string()),
        ("game", format!("site/games/{}/index.html", g.postal)),
        ("ply", format!("site/games/{}/ply-5.html", g.postal)),
        ("kind", "site/kinds/dicerink.html".to_string()),
    ];
    for (name, page) in &shots {
        let page = top.join(page);
        screenshot_page(&exe, &page, &format!("archive-{name}"), 640);
        screenshot_page(&exe, &page, &format!("archive-{name}-{PHONE}"), PHONE);
    }
}
