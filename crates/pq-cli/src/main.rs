//! The `pq` command.

fn main() {}
