//! What the streaming decoders share: appending exactly `n` values, and
//! skipping value by value.

use alloc::vec::Vec;

use crate::error::{Error, Result};

/// Fails unless a stream with `left` values left holds the `n` asked for:
/// the check made before anything is allocated for them.
pub(crate) fn check_left(n: usize, left: usize, what: &'static str) -> Result<()> {
    if n > left {
        return Err(Error::NotEnoughValues {
            what,
            expected: n,
            found: left,
        });
    }
    Ok(())
}

/// Appends exactly `n` values to `out` with `decode`, which fills a slice,
/// or fails with nothing appended: `n` is checked against the `left`
/// values the stream declares before anything is allocated for it.
pub(crate) fn append_exactly<T: Copy + Default>(
    out: &mut Vec<T>,
    n: usize,
    left: usize,
    what: &'static str,
    decode: impl FnOnce(&mut [T]) -> Result<usize>,
) -> Result<()> {
    check_left(n, left, what)?;
    let at = out.len();
    out.resize(at + n, T::default());
    decode(&mut out[at..])
        .map(|_| ())
        .inspect_err(|_| out.truncate(at))
}

/// Skips up to `n` values by taking them one at a time from `next`, which
/// says whether there was one; returns how many.
pub(crate) fn skip_each(n: usize, mut next: impl FnMut() -> Result<bool>) -> Result<usize> {
    let mut done = 0;
    while done < n && next()? {
        done += 1;
    }
    Ok(done)
}
