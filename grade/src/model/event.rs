//! Events: what one run of one thread did to memory, in program order.

use crate::litmus::{LocId, Span};

use hipscope_mm::{Access, Order, Scope, Spaces, Value};

/// A memory cell: a location, and for work-group-local memory the work-group whose copy it
/// is (`None` for global memory, which every thread shares).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    pub loc: LocId,
    pub workgroup: Option<u32>,
}

/// What an event does.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A load (or a compare-and-swap that failed).
    Read {
        cell: Cell,
        bytes: (u8, u8),
        access: Access,
        value: Value,
    },
    /// A store, or the initial value of a cell (`thread` [`INIT`]).
    Write {
        cell: Cell,
        bytes: (u8, u8),
        access: Access,
        value: Value,
    },
    /// An atomic read-modify-write (or a compare-and-swap that succeeded): it reads `read`
    /// and writes `written` indivisibly.
    Rmw {
        cell: Cell,
        bytes: (u8, u8),
        access: Access,
        read: Value,
        written: Value,
    },
    Fence {
        order: Order,
        scope: Scope,
        spaces: Spaces,
    },
    /// A work-group barrier; `key` identifies which barrier (the id, or the thread's n-th).
    Barrier {
        key: String,
        spaces: Spaces,
    },
}

/// The `thread` of the initial writes.
pub const INIT: u16 = u16::MAX;

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub thread: u16,
    pub kind: Kind,
    pub span: Span,
    /// The earlier events of the same thread (by position in the thread's run) whose values
    /// this event depends on: a write's value computed from a load, or any event after a
    /// branch on a loaded value (syntactic data and control dependencies, as herd's `dep`).
    pub deps: u64,
}

impl Event {
    pub fn cell(&self) -> Option<Cell> {
        match &self.kind {
            Kind::Read { cell, .. } | Kind::Write { cell, .. } | Kind::Rmw { cell, .. } => Some(*cell),
            _ => None,
        }
    }

    /// The byte range `(offset, width)` a memory event touches.
    pub fn bytes(&self) -> Option<(u8, u8)> {
        match &self.kind {
            Kind::Read { bytes, .. } | Kind::Write { bytes, .. } | Kind::Rmw { bytes, .. } => Some(*bytes),
            _ => None,
        }
    }

    pub fn access(&self) -> Option<Access> {
        match &self.kind {
            Kind::Read { access, .. } | Kind::Write { access, .. } | Kind::Rmw { access, .. } => Some(*access),
            _ => None,
        }
    }

    pub fn is_init(&self) -> bool {
        self.thread == INIT
    }

    pub fn reads(&self) -> bool {
        matches!(self.kind, Kind::Read { .. } | Kind::Rmw { .. })
    }

    pub fn writes(&self) -> bool {
        matches!(self.kind, Kind::Write { .. } | Kind::Rmw { .. })
    }

    /// The value a read or RMW event read.
    pub fn value_read(&self) -> Option<Value> {
        match self.kind {
            Kind::Read { value, .. } => Some(value),
            Kind::Rmw { read, .. } => Some(read),
            _ => None,
        }
    }

    /// The value a write or RMW event wrote.
    pub fn value_written(&self) -> Option<Value> {
        match self.kind {
            Kind::Write { value, .. } => Some(value),
            Kind::Rmw { written, .. } => Some(written),
            _ => None,
        }
    }

    /// The memory order and scope the event synchronizes with, if it is atomic or a fence.
    pub fn order_scope(&self) -> Option<(Order, Scope)> {
        match &self.kind {
            Kind::Fence { order, scope, .. } => Some((*order, *scope)),
            _ => match self.access()? {
                Access::Atomic { order, scope } => Some((order, scope)),
                Access::Plain => None,
            },
        }
    }

    pub fn is_atomic(&self) -> bool {
        matches!(self.access(), Some(Access::Atomic { .. }))
    }

    /// Do two memory events touch a common byte of the same cell?
    pub fn overlaps(&self, other: &Event) -> bool {
        match (self.cell(), other.cell(), self.bytes(), other.bytes()) {
            (Some(a), Some(b), Some((ao, aw)), Some((bo, bw))) => a == b && (ao as u16) < bo as u16 + bw as u16 && (bo as u16) < ao as u16 + aw as u16,
            _ => false,
        }
    }
}
