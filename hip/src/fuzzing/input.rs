//! The fuzz input as a stream of small numbers: each read takes the next bytes, and an input
//! that has run out reads zeros (so every input, however short, is a whole program).

pub(super) struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data, at: 0 }
    }

    /// Whether every byte has been read.
    pub fn done(&self) -> bool {
        self.at >= self.data.len()
    }

    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// One of `table`'s values (the first when the table is empty is never asked for).
    pub fn pick<T: Copy>(&mut self, table: &[T]) -> T {
        table[usize::from(self.u8()) % table.len()]
    }

    /// An index below `n` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        usize::from(self.u8()) % n.max(1)
    }
}
