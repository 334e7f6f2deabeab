//! Read benchmark (filled in later).
fn main() {}
