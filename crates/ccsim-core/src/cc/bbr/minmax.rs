//! Windowed running max of (time, value) samples with three candidates, the
//! estimator Linux uses for BBR's bandwidth (lib/minmax.c, after Kathleen
//! Nichols' algorithm): the best value in the window, the best value seen
//! since the best one's quarter and half of the window, so an expired best
//! is replaced without storing every sample.

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sample {
    t: u64,
    v: f64,
}

#[derive(Clone, Debug, Default)]
pub struct MaxFilter {
    s: [Sample; 3],
}

impl MaxFilter {
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    pub fn reset(&mut self, t: u64, v: f64) -> f64 {
        let x = Sample { t, v };
        self.s = [x; 3];
        v
    }

    /// Add sample `v` taken at `t`; window length `win` (same unit as t).
    pub fn running_max(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let val = Sample { t, v };
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if val.v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    fn subwin_update(&mut self, win: u64, val: Sample) -> f64 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best sample left the window: promote the others.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a new best: take a second choice.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window: take a third choice.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_over_a_sliding_window_of_rounds() {
        // Window 10 rounds: a peak of 100 at round 0 is forgotten after round 10,
        // and the best of the newer samples takes over.
        let mut f = MaxFilter::default();
        f.reset(0, 100.0);
        for r in 1..=10 {
            assert_eq!(f.running_max(10, r, 50.0 + r as f64), 100.0, "round {r}");
        }
        let v = f.running_max(10, 11, 40.0);
        assert!((50.0..100.0).contains(&v), "expired peak replaced by a newer candidate: {v}");
        // A new maximum always wins at once.
        assert_eq!(f.running_max(10, 12, 120.0), 120.0);
    }
}
