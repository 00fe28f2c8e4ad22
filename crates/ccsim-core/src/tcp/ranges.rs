//! Sorted, disjoint, half-open ranges of segment numbers. The receiver keeps
//! its out-of-order data in one, the sender its SACKed segments in another.
//! Loss episodes create few ranges, so a sorted vector beats a tree here.

#[derive(Clone, Debug, Default)]
pub struct RangeSet {
    r: Vec<(u64, u64)>,
}

impl RangeSet {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }
    pub fn clear(&mut self) {
        self.r.clear();
    }
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.r
    }
    /// End (exclusive) of the highest range.
    #[inline]
    pub fn last_end(&self) -> Option<u64> {
        self.r.last().map(|x| x.1)
    }

    /// The range containing `s`.
    pub fn find(&self, s: u64) -> Option<(u64, u64)> {
        let i = self.r.partition_point(|&(_, b)| b <= s);
        match self.r.get(i) {
            Some(&(a, b)) if a <= s && s < b => Some((a, b)),
            _ => None,
        }
    }

    /// Add [a, b); push the parts that were not covered yet onto `new`.
    pub fn insert(&mut self, a: u64, b: u64, new: &mut Vec<(u64, u64)>) {
        if a >= b {
            return;
        }
        // First range that ends at or after a (touching ranges merge).
        let i = self.r.partition_point(|&(_, e)| e < a);
        let mut j = i;
        let mut cur = a;
        let (mut lo, mut hi) = (a, b);
        while j < self.r.len() && self.r[j].0 <= b {
            let (s, e) = self.r[j];
            if s > cur {
                new.push((cur, s.min(b)));
            }
            cur = cur.max(e);
            lo = lo.min(s);
            hi = hi.max(e);
            j += 1;
        }
        if cur < b {
            new.push((cur, b));
        }
        self.r.splice(i..j, std::iter::once((lo, hi)));
    }

    /// Forget everything below `x`.
    pub fn trim_below(&mut self, x: u64) {
        let k = self.r.partition_point(|&(_, e)| e <= x);
        self.r.drain(..k);
        if let Some(f) = self.r.first_mut() {
            if f.0 < x {
                f.0 = x;
            }
        }
    }

    /// If the lowest range starts at `x`, remove it and return its end.
    #[inline]
    pub fn pop_front_at(&mut self, x: u64) -> Option<u64> {
        match self.r.first() {
            Some(&(a, b)) if a == x => {
                self.r.remove(0);
                Some(b)
            }
            _ => None,
        }
    }

    /// The point x such that exactly `k` covered segments are ≥ x (k ≥ 1), or
    /// None if fewer than k are covered.
    pub fn kth_highest(&self, k: u64) -> Option<u64> {
        let mut need = k;
        for &(a, b) in self.r.iter().rev() {
            let len = b - a;
            if len >= need {
                return Some(b - need);
            }
            need -= len;
        }
        None
    }

    /// Covered segments.
    pub fn total(&self) -> u64 {
        self.r.iter().map(|(a, b)| b - a).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_reports_only_new_parts_and_merges() {
        let mut s = RangeSet::default();
        let mut n = Vec::new();
        s.insert(5, 7, &mut n);
        s.insert(10, 12, &mut n);
        assert_eq!(n, vec![(5, 7), (10, 12)]);
        n.clear();
        s.insert(6, 11, &mut n);
        assert_eq!(n, vec![(7, 10)]);
        assert_eq!(s.ranges(), &[(5, 12)]);
        n.clear();
        s.insert(12, 13, &mut n); // touching range merges
        assert_eq!(s.ranges(), &[(5, 13)]);
        s.insert(1, 2, &mut n);
        assert_eq!(s.ranges(), &[(1, 2), (5, 13)]);
        assert_eq!(s.find(6), Some((5, 13)));
        assert_eq!(s.find(3), None);
        assert_eq!(s.total(), 9);
    }

    #[test]
    fn kth_highest_and_trim() {
        let mut s = RangeSet::default();
        let mut n = Vec::new();
        for x in [2u64, 4, 6] {
            s.insert(x, x + 1, &mut n);
        }
        assert_eq!(s.kth_highest(1), Some(6));
        assert_eq!(s.kth_highest(3), Some(2));
        assert_eq!(s.kth_highest(4), None);
        s.trim_below(5);
        assert_eq!(s.ranges(), &[(6, 7)]);
        s.insert(7, 10, &mut n);
        s.trim_below(8);
        assert_eq!(s.ranges(), &[(8, 10)]);
        assert_eq!(s.pop_front_at(8), Some(10));
        assert!(s.is_empty());
    }
}
