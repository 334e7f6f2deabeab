//! [`SmallList`]: a list of small `Copy` values, stored inline while short.

use std::ops::{Deref, DerefMut};

/// A Thrift list of integers, enums or small all-scalar structs (such as
/// `ColumnMetaData::encodings` or `SizeStatistics::definition_level_histogram`).
///
/// Up to `N` values live inline; longer lists go to a `Vec`. A footer holds
/// several such lists per column chunk, nearly always short, so decoding one
/// usually allocates nothing. It dereferences to a slice, so it reads like a
/// `Vec`.
///
/// ```
/// use pq_format::{Encoding, SmallList};
/// let mut l: SmallList<Encoding> = vec![Encoding::PLAIN].into();
/// l.push(Encoding::RLE);
/// assert_eq!(l.len(), 2);
/// assert!(l.contains(&Encoding::RLE));
/// assert_eq!(l, SmallList::from(&[Encoding::PLAIN, Encoding::RLE][..]));
/// let long: SmallList<i64> = (0..100).collect();
/// assert_eq!(long[99], 99);
/// ```
#[derive(Clone)]
pub struct SmallList<T: Copy + Default, const N: usize = 4>(Repr<T, N>);

#[derive(Clone)]
enum Repr<T, const N: usize> {
    Inline(u8, [T; N]),
    Heap(Vec<T>),
}

impl<T: Copy + Default, const N: usize> SmallList<T, N> {
    /// An empty list.
    pub fn new() -> Self {
        Self(Repr::Inline(0, [T::default(); N]))
    }

    /// Append a value.
    pub fn push(&mut self, v: T) {
        match &mut self.0 {
            Repr::Inline(len, items) => {
                let n = usize::from(*len);
                if let Some(slot) = items.get_mut(n) {
                    *slot = v;
                    *len += 1;
                } else {
                    let mut heap = Vec::with_capacity(2 * N.max(1));
                    heap.extend_from_slice(items);
                    heap.push(v);
                    self.0 = Repr::Heap(heap);
                }
            }
            Repr::Heap(heap) => heap.push(v),
        }
    }

    /// The values as a slice.
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::Inline(len, items) => items.get(..usize::from(*len)).unwrap_or_default(),
            Repr::Heap(v) => v,
        }
    }

    /// The values as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::Inline(len, items) => items.get_mut(..usize::from(*len)).unwrap_or_default(),
            Repr::Heap(v) => v,
        }
    }
}

impl<T: Copy + Default, const N: usize> Default for SmallList<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const N: usize> Deref for SmallList<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default, const N: usize> DerefMut for SmallList<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq for SmallList<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Eq, const N: usize> Eq for SmallList<T, N> {}

impl<T: Copy + Default + std::fmt::Debug, const N: usize> std::fmt::Debug for SmallList<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for SmallList<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut l = Self::new();
        for v in iter {
            l.push(v);
        }
        l
    }
}

impl<T: Copy + Default, const N: usize> Extend<T> for SmallList<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

impl<T: Copy + Default, const N: usize> From<Vec<T>> for SmallList<T, N> {
    fn from(v: Vec<T>) -> Self {
        if v.len() <= N {
            v.into_iter().collect()
        } else {
            Self(Repr::Heap(v))
        }
    }
}

impl<T: Copy + Default, const N: usize> From<&[T]> for SmallList<T, N> {
    fn from(v: &[T]) -> Self {
        v.iter().copied().collect()
    }
}

impl<T: Copy + Default, const N: usize> From<SmallList<T, N>> for Vec<T> {
    fn from(l: SmallList<T, N>) -> Self {
        match l.0 {
            Repr::Heap(v) => v,
            Repr::Inline(..) => l.as_slice().to_vec(),
        }
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a SmallList<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a mut SmallList<T, N> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::SmallList;

    #[test]
    fn grows_from_inline_to_heap_keeping_order() {
        let mut l: SmallList<i64, 2> = SmallList::new();
        for i in 0..5 {
            l.push(i);
            assert_eq!(l.as_slice(), (0..=i).collect::<Vec<_>>().as_slice());
        }
        let v: Vec<i64> = l.clone().into();
        assert_eq!(v, [0, 1, 2, 3, 4]);
        assert_eq!(SmallList::<i64, 2>::from(v), l);
        for x in &mut l {
            *x += 1;
        }
        assert_eq!(l.as_slice(), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn zero_inline_capacity_works() {
        let l: SmallList<i32, 0> = (0..3).collect();
        assert_eq!(l.as_slice(), [0, 1, 2]);
        assert!(SmallList::<i32, 0>::new().is_empty());
    }
}
