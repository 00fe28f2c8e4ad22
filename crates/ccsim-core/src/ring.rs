//! A FIFO ring of `Copy` values with a power-of-two capacity: the link's
//! packets (waiting, in service, propagating). Indexing is a mask, not
//! `VecDeque`'s wrap-around test and bounds check, and the hot operations
//! (`push_back`, `front`, `pop_front`, the i-th element) are a few
//! instructions each; a link touches its ring several times per packet.

#[derive(Clone, Debug)]
pub struct Ring<T: Copy> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }
}

impl<T: Copy> Ring<T> {
    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th element from the front.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i < self.len {
            Some(&self.buf[(self.head + i) & self.mask()])
        } else {
            None
        }
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    #[inline(always)]
    pub fn back(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    #[inline(always)]
    pub fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow(x);
        }
        let i = (self.head + self.len) & self.mask();
        self.buf[i] = x;
        self.len += 1;
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = self.buf[self.head];
        self.len -= 1;
        // An emptied ring starts again at slot 0: a lightly loaded link
        // (one packet at a time) keeps reusing the same cache line instead
        // of cycling through its whole capacity.
        self.head = if self.len == 0 { 0 } else { (self.head + 1) & self.mask() };
        Some(x)
    }

    /// Double the capacity (at least 8), keeping the order; `fill` pads the
    /// new slots (they are written before they are read).
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(8);
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter().copied());
        buf.resize(cap, fill);
        self.buf = buf;
        self.head = 0;
    }

    /// Front to back.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        (0..self.len).map(move |i| &self.buf[(self.head + i) & self.mask()])
    }

    /// Elements `from..` (front is 0).
    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = &T> + '_ {
        (from.min(self.len)..self.len).map(move |i| &self.buf[(self.head + i) & self.mask()])
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;
    use std::collections::VecDeque;

    #[test]
    fn behaves_as_a_vecdeque_across_growth_and_wrap_around() {
        let mut r = Ring::default();
        let mut d = VecDeque::new();
        let mut rng = crate::rng::Stream::new(3, crate::rng::StreamKind::Flow, 0);
        for step in 0..10_000u64 {
            let x = rng.next_u64();
            if !x.is_multiple_of(3) {
                r.push_back(step);
                d.push_back(step);
            } else {
                assert_eq!(r.pop_front(), d.pop_front());
            }
            assert_eq!(r.len(), d.len());
            assert_eq!(r.front(), d.front());
            assert_eq!(r.back(), d.back());
            if !d.is_empty() {
                let i = (x >> 7) as usize % d.len();
                assert_eq!(r.get(i), d.get(i));
                assert!(r.iter_from(i).eq(d.range(i..)));
            }
        }
        assert!(r.iter().eq(d.iter()) && r.iter().rev().eq(d.iter().rev()));
    }

    #[test]
    fn an_emptied_ring_starts_again_at_its_first_slot() {
        let mut r = Ring::default();
        for i in 0..5u32 {
            r.push_back(i);
        }
        assert_eq!(r.pop_front(), Some(0));
        assert_eq!(r.head, 1);
        for i in 1..5u32 {
            assert_eq!(r.pop_front(), Some(i));
        }
        assert_eq!((r.head, r.len()), (0, 0));
        r.push_back(9);
        assert_eq!((r.front(), r.head), (Some(&9), 0));
    }
}
