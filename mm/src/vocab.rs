//! The words of the memory model: scopes, orders, how an access accesses memory, memory
//! spaces and the arithmetic of atomic read-modify-writes. Scopes are HIP's (`wavefront ⊂
//! workgroup ⊂ agent ⊂ system`); every litmus dialect the grader reads maps its names onto
//! them (OpenCL `memory_scope_device` → agent, PTX `cta` → workgroup, HSA `wg` → workgroup, …).

/// Memory space of a location (OpenCL `global`/`local`, HIP global vs `__shared__`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Device memory, shared by every thread of the agent (and the system).
    Global,
    /// Work-group local memory (OpenCL `local`, HIP `__shared__`, AMD LDS): one copy per
    /// work-group, so threads of different work-groups never share it.
    Local,
    /// OpenCL 2.0's generic address space: a pointer parameter with no `global`/`local`
    /// qualifier. Global memory to every model; the OpenCL model (as Dartagnan reads
    /// opencl.cat) counts its accesses in neither the global nor the local relations.
    Generic,
}

/// A set of memory spaces (fences and barriers name which spaces they order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spaces {
    pub global: bool,
    pub local: bool,
}

impl Spaces {
    pub const ALL: Spaces = Spaces { global: true, local: true };
    pub const GLOBAL: Spaces = Spaces { global: true, local: false };
    pub const LOCAL: Spaces = Spaces { global: false, local: true };

    pub fn contains(self, space: Space) -> bool {
        match space {
            Space::Global | Space::Generic => self.global,
            Space::Local => self.local,
        }
    }
}

/// HIP memory scopes, narrowest first, so `a <= b` means "a is contained in b".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// The thread itself (OpenCL `memory_scope_work_item`, HSA `wi`).
    WorkItem,
    /// The threads of one wavefront (HSA `wave`, Vulkan `sg`).
    Wavefront,
    /// One work-group (OpenCL `work_group`, PTX `cta`, HSA `wg`, HIP `thread_scope_block`).
    Workgroup,
    /// One device (OpenCL `device`, PTX `gpu`, HSA `agent`, HIP `thread_scope_device`).
    Agent,
    /// Every agent and the host (OpenCL `all_svm_devices`, PTX `sys`, HSA `system`).
    System,
}

impl Scope {
    /// The scope's lower-case name as reports and sweep metrics spell it (`workgroup`, `agent` …).
    pub fn name(self) -> &'static str {
        match self {
            Scope::WorkItem => "workitem",
            Scope::Wavefront => "wavefront",
            Scope::Workgroup => "workgroup",
            Scope::Agent => "agent",
            Scope::System => "system",
        }
    }
}

/// C++ memory orders. Plain (non-atomic) accesses are [`Access::Plain`], not an order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl Order {
    /// Has acquire semantics (acquire, acq_rel, seq_cst).
    pub fn acquires(self) -> bool {
        matches!(self, Order::Acquire | Order::AcqRel | Order::SeqCst)
    }
    /// Has release semantics (release, acq_rel, seq_cst).
    pub fn releases(self) -> bool {
        matches!(self, Order::Release | Order::AcqRel | Order::SeqCst)
    }
    /// The order of a failed compare-and-swap whose success order is `self`: it only
    /// loads, so release parts drop (C++ `compare_exchange` with one order).
    pub fn cas_failure(self) -> Order {
        match self {
            Order::Release => Order::Relaxed,
            Order::AcqRel => Order::Acquire,
            other => other,
        }
    }
}

/// How a load, store or read-modify-write accesses memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// A non-atomic access (`*x = 1`, `w[] x 1`, PTX `st.weak`).
    Plain,
    /// An atomic access with its order and scope.
    Atomic { order: Order, scope: Scope },
}

/// The arithmetic of an atomic read-modify-write (`fetch_<op>` / `atomic<Op>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    /// `exchange`: the new value is the operand.
    Exchange,
    Add,
    Sub,
    And,
    Or,
    Xor,
    Min,
    Max,
}
