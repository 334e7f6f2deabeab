//! Links `pq` as a position-dependent executable on Linux.
//!
//! `pq` carries DataFusion, Ballista's client and the object stores'
//! clients: as a position-independent executable it has some 240 000
//! relative relocations, which the loader applies at every start, writing
//! (and so copying) some 4 MB of pages: 4 ms of every run, more than many
//! commands take to do their work. Linked at a fixed address it needs none
//! (1.6 ms from exec to exit for `pq --version`, against 5.9 ms). The cost
//! is address-space randomisation of the executable's own image (shared
//! libraries, heap and stack are still randomised); the reading code is
//! safe Rust wherever it touches file bytes.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
