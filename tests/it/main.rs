//! The application's integration tests, one test binary: one module per subject, with the shared harness: `common`, `lcg`, `mailstack`, `per_game` (a suite's scenario for each game of the registry), `work`'s counting allocator, and for the IMAP tests `imap_box` and `cut_proxy`.
//!
//! The modules share one process, so none changes the process's environment or current
//! folder: what a `pbem` child process needs is given to its `Command`.

mod common;
mod cut_proxy;
mod imap_box;
// The generator's one definition is the rules crate's tests' (they play pseudo-random games too).
#[path = "../../crates/rules/tests/it/lcg.rs"]
mod lcg;
mod mailstack;
mod per_game;
mod work;

/// Counts each test thread's allocations, for the tests that bound the work of one mail.
#[global_allocator]
static ALLOCATOR: work::Counting = work::Counting::system();

mod archive;
mod archive_browser;
mod bench_smoke;
mod bounce_corpus;
mod bounce_flow;
mod bounces;
mod browser;
mod cli;
mod comments;
mod concurrency;
mod crash_safety;
mod d4d6_mail;
mod d4d6_tablebase;
mod demo;
mod desk;
mod desk_config;
mod dicess_mail;
mod digest;
mod diptactoe_mail;
mod dkim;
mod docs;
mod e2e_bounce;
mod e2e_mailstack;
mod exit_codes;
mod forfeit;
mod fuzz_ingest;
mod gm_desk;
mod gm_service;
mod gm_week;
mod golden;
mod guides;
mod hostile_mail;
mod html_mail;
mod imap_hostile;
mod imap_stack;
mod install;
mod isolation;
mod letters;
mod linger;
mod mail_flow;
mod mail_hygiene;
mod mail_inbound;
mod mail_work;
mod names;
mod outbox;
mod picture;
mod reliability;
mod replay_memo;
mod robot_games;
mod robots;
mod salt_window;
mod sender_auth;
mod serve;
mod siberian_mail;
mod smtp_stack;
mod spool_quarantine;
mod stats;
mod tidy;
mod wake;
mod wal;
