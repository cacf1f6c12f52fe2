//! Vector clocks as sparse sorted lists of (wave, time): a wave knows the clocks only of the
//! waves it has synchronised with, usually the few of its work-group, so joins at a barrier
//! cost the group's size, not the dispatch's.

/// Missing entries are 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock(Vec<(u32, u32)>);

impl Clock {
    /// The time known for `wave`.
    pub fn get(&self, wave: u32) -> u32 {
        self.0.binary_search_by_key(&wave, |e| e.0).map_or(0, |i| self.0[i].1)
    }

    /// Know at least `time` for `wave`.
    pub fn raise(&mut self, wave: u32, time: u32) {
        match self.0.binary_search_by_key(&wave, |e| e.0) {
            Ok(i) => self.0[i].1 = self.0[i].1.max(time),
            Err(i) => self.0.insert(i, (wave, time)),
        }
    }

    /// The element-wise maximum with `other`.
    pub fn join(&mut self, other: &Clock) {
        if other.0.is_empty() {
            return;
        }
        if self.0.is_empty() {
            self.0.clone_from(&other.0);
            return;
        }
        let (a, b) = (&self.0, &other.0);
        let mut out = Vec::with_capacity(a.len().max(b.len()));
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => {
                    out.push(a[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push((a[i].0, a[i].1.max(b[j].1)));
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        self.0 = out;
    }

    /// This clock with `time` known for `wave`.
    pub fn with(&self, wave: u32, time: u32) -> Clock {
        let mut c = self.clone();
        c.raise(wave, time);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::Clock;

    #[test]
    fn join_is_the_elementwise_maximum() {
        let mut a = Clock::default().with(3, 5).with(7, 1);
        let b = Clock::default().with(1, 2).with(7, 4).with(9, 9);
        a.join(&b);
        assert_eq!([a.get(1), a.get(3), a.get(7), a.get(9), a.get(4)], [2, 5, 4, 9, 0]);
        let mut c = Clock::default();
        c.join(&a);
        assert_eq!(c, a);
    }
}
