//! Column work spread over threads: each column's step (encoding a batch,
//! finishing a chunk) is one item, taken by whichever thread is free, and
//! the results come back in column order, so that what is written does not
//! depend on the number of threads or on which thread did what.

use std::sync::Mutex;

use crate::error::Result;

/// `f` of each item, on up to `threads` threads (the caller's among them),
/// in the items' order. The first error by item order is the one returned,
/// whichever thread met it first; a panic in `f` is resumed on the
/// caller's thread. A thread that cannot start is left out, as the
/// reader's decoding threads are: the others do its share.
pub(super) fn map_in_order<I, R>(
    items: I,
    threads: usize,
    f: impl Fn(I::Item) -> Result<R> + Sync,
) -> Result<Vec<R>>
where
    I: IntoIterator<IntoIter: ExactSizeIterator + Send>,
    I::Item: Send,
    R: Send,
{
    let items = items.into_iter();
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.map(f).collect();
    }
    let queue = Mutex::new(items.enumerate());
    let work = || {
        let mut done = Vec::new();
        loop {
            // A poisoned lock means another thread panicked in `f`: this one
            // stops, and the panic is resumed below.
            let next = match queue.lock() {
                Ok(mut q) => q.next(),
                Err(_) => None,
            };
            let Some((i, item)) = next else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let mut all = std::thread::scope(|s| {
        let others: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
            .collect();
        let mut all = work();
        for h in others {
            match h.join() {
                Ok(done) => all.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::error::Error;

    #[test]
    fn results_come_back_in_item_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..100).collect();
        for threads in [1, 2, 3, 8, 200] {
            // Uneven work, so that threads finish out of order.
            let got = map_in_order(items.clone(), threads, |i| {
                Ok((0..(i % 7) * 10_000).fold(i, |a, b| a.wrapping_add(b)))
            })
            .unwrap();
            let want: Vec<u64> = items
                .iter()
                .map(|&i| (0..(i % 7) * 10_000).fold(i, |a, b| a.wrapping_add(b)))
                .collect();
            assert_eq!(got, want, "{threads} threads");
        }
    }

    #[test]
    fn the_first_error_by_item_order_is_returned() {
        for threads in [1, 2, 4] {
            let e = map_in_order(0..50usize, threads, |i| {
                if i % 10 == 7 {
                    Err(Error::Request {
                        message: format!("item {i}"),
                    })
                } else {
                    Ok(i)
                }
            })
            .unwrap_err();
            assert!(e.to_string().contains("item 7"), "{threads} threads: {e}");
        }
    }
}
