//! Binary relations over the events of one execution, as bit matrices.
//!
//! A litmus execution has a few dozen events, so a row is one `u128` and the algebra the
//! axioms need (union, intersection, composition, inverse, transitive closure, cycles) is a
//! handful of word operations per row.

/// Most events an execution may have (init writes included).
pub const MAX_EVENTS: usize = 128;

/// A relation over events `0..n`: `rows[a]` bit `b` set ⇔ `(a, b)` in the relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rel {
    rows: Vec<u128>,
}

impl Rel {
    pub fn empty(n: usize) -> Rel {
        debug_assert!(n <= MAX_EVENTS);
        Rel { rows: vec![0; n] }
    }

    /// `[s]`: the identity on the events of `set`.
    pub fn identity_on(n: usize, set: u128) -> Rel {
        let mut r = Rel::empty(n);
        for (a, row) in r.rows.iter_mut().enumerate() {
            if set >> a & 1 == 1 {
                *row = 1 << a;
            }
        }
        r
    }

    /// `a × b` restricted to the given sets.
    pub fn product(n: usize, a: u128, b: u128) -> Rel {
        let mut r = Rel::empty(n);
        for (i, row) in r.rows.iter_mut().enumerate() {
            if a >> i & 1 == 1 {
                *row = b;
            }
        }
        r
    }

    /// The pairs `(a, b)` of `0..n` for which `f(a, b)` holds.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> bool) -> Rel {
        let mut r = Rel::empty(n);
        for (a, row) in r.rows.iter_mut().enumerate() {
            *row = (0..n).filter(|b| f(a, *b)).fold(0, |acc, b| acc | 1 << b);
        }
        r
    }

    /// `self \ id`.
    pub fn irreflexive_part(&self) -> Rel {
        let rows = self.rows.iter().enumerate().map(|(a, row)| row & !(1u128 << a)).collect();
        Rel { rows }
    }

    /// The sources of the pairs, as a set.
    pub fn domain(&self) -> u128 {
        self.rows.iter().enumerate().filter(|(_, r)| **r != 0).fold(0, |acc, (a, _)| acc | 1 << a)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|r| *r == 0)
    }

    pub fn add(&mut self, a: usize, b: usize) {
        self.rows[a] |= 1 << b;
    }

    pub fn remove(&mut self, a: usize, b: usize) {
        self.rows[a] &= !(1 << b);
    }

    pub fn has(&self, a: usize, b: usize) -> bool {
        self.rows[a] >> b & 1 == 1
    }

    /// The pairs of the relation, in row-major order.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows.iter().enumerate().flat_map(|(a, row)| bits(*row).map(move |b| (a, b)))
    }

    pub fn union(&self, other: &Rel) -> Rel {
        Rel { rows: self.rows.iter().zip(&other.rows).map(|(a, b)| a | b).collect() }
    }

    pub fn union_with(&mut self, other: &Rel) {
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            *a |= b;
        }
    }

    pub fn intersect(&self, other: &Rel) -> Rel {
        Rel { rows: self.rows.iter().zip(&other.rows).map(|(a, b)| a & b).collect() }
    }

    pub fn minus(&self, other: &Rel) -> Rel {
        Rel { rows: self.rows.iter().zip(&other.rows).map(|(a, b)| a & !b).collect() }
    }

    /// Keeps the pairs whose source is in `from` and target in `to`.
    pub fn restrict(&self, from: u128, to: u128) -> Rel {
        let rows = self.rows.iter().enumerate().map(|(a, row)| if from >> a & 1 == 1 { row & to } else { 0 }).collect();
        Rel { rows }
    }

    /// `self ; other`.
    pub fn then(&self, other: &Rel) -> Rel {
        let rows = self.rows.iter().map(|row| bits(*row).fold(0u128, |acc, b| acc | other.rows[b])).collect();
        Rel { rows }
    }

    pub fn inverse(&self) -> Rel {
        let mut r = Rel::empty(self.len());
        for (a, b) in self.pairs() {
            r.add(b, a);
        }
        r
    }

    /// `self⁺` (Warshall's algorithm on bit rows).
    pub fn closure(&self) -> Rel {
        let mut rows = self.rows.clone();
        for k in 0..rows.len() {
            let via = rows[k];
            for row in rows.iter_mut() {
                if *row >> k & 1 == 1 {
                    *row |= via;
                }
            }
        }
        Rel { rows }
    }

    /// `self?`: the relation plus the identity.
    pub fn reflexive(&self) -> Rel {
        let mut r = self.clone();
        for (a, row) in r.rows.iter_mut().enumerate() {
            *row |= 1 << a;
        }
        r
    }

    pub fn is_irreflexive(&self) -> bool {
        self.rows.iter().enumerate().all(|(a, row)| row >> a & 1 == 0)
    }

    pub fn is_acyclic(&self) -> bool {
        self.closure().is_irreflexive()
    }
}

/// The set bits of a word, lowest first.
pub fn bits(mut word: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if word == 0 {
            return None;
        }
        let b = word.trailing_zeros() as usize;
        word &= word - 1;
        Some(b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(n: usize, pairs: &[(usize, usize)]) -> Rel {
        let mut r = Rel::empty(n);
        for (a, b) in pairs {
            r.add(*a, *b);
        }
        r
    }

    #[test]
    fn closure_of_a_chain_reaches_its_end_and_finds_no_cycle() {
        let r = rel(4, &[(0, 1), (1, 2), (2, 3)]);
        let c = r.closure();
        assert!(c.has(0, 3) && c.has(1, 3) && !c.has(3, 0));
        assert!(r.is_acyclic());
        assert!(!rel(4, &[(0, 1), (1, 2), (2, 0)]).is_acyclic());
    }

    #[test]
    fn composition_and_inverse() {
        let a = rel(3, &[(0, 1)]);
        let b = rel(3, &[(1, 2), (0, 2)]);
        assert_eq!(a.then(&b), rel(3, &[(0, 2)]));
        assert_eq!(b.inverse(), rel(3, &[(2, 1), (2, 0)]));
        assert_eq!(b.restrict(0b010, 0b100), rel(3, &[(1, 2)]));
    }

    #[test]
    fn high_event_numbers_use_the_whole_word() {
        let r = rel(128, &[(0, 127), (127, 64)]);
        assert!(r.closure().has(0, 64));
        assert_eq!(bits(1u128 << 127 | 1).collect::<Vec<_>>(), vec![0, 127]);
    }
}
