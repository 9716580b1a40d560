//! Links the `pbem` binary as a fixed-address (non-PIE) executable on Linux.

fn main() {
    // An MTA starts one `pbem ingest` per mail, so start-up is paid on every message. A
    // position-independent executable makes the dynamic loader apply ~32,000 relocations
    // and copy the pages they touch at every start: half of its page faults, about 0.5 ms.
    // Fixed addresses resolve them at link time. (Address-space randomisation of the
    // binary itself is what is given up; libraries, stack and heap stay randomised.)
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
