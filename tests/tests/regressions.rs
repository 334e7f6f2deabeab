//! Replays every input in `tests/regressions/<target>/` through its fuzz
//! target's harness on the stable toolchain: each must return, not panic.

use std::path::Path;

use pq_tests::harness::TARGETS;

#[test]
fn every_regression_input_returns() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut replayed = 0;
    for (name, target) in TARGETS {
        let dir = root.join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(data) = std::fs::read(&path) else {
                continue;
            };
            // A panic here fails the test and names the file.
            eprintln!("replaying {}", path.display());
            target(&data);
            replayed += 1;
        }
    }
    eprintln!("{replayed} regression inputs replayed");
}

#[test]
fn harness_accepts_the_fixtures() {
    // Real files through the whole-file targets: they must parse, which also
    // proves the harness reaches the code it claims to.
    let dir = pq_tests::fixtures_dir();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let data = std::fs::read(entry.path()).unwrap();
        assert!(
            pq_format::ParquetMetaData::from_slice(&data, &Default::default()).is_ok(),
            "{}",
            entry.path().display()
        );
        pq_tests::harness::footer(&data);
    }
}
