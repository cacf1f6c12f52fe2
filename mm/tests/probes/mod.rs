//! The probe kernels of `workloads/src/mm_lowering.hip`: the memory operation each performs,
//! from its name (the file's header lists the names). Shared by the lowering test
//! (`mm/tests/lowering.rs`) and the recogniser test (`grade/tests/suite/recover.rs`, which reads
//! kernels through the engine's loader and includes this file by path).

// Each test binary compiles this module on its own.
#![allow(dead_code)]

use hipscope_mm::lower::{Op, Rmw};
use hipscope_mm::{Access, Order, RmwOp, Scope, Space, Spaces};

fn order(name: &str) -> Option<Order> {
    Some(match name {
        "relaxed" => Order::Relaxed,
        "acquire" => Order::Acquire,
        "release" => Order::Release,
        "acq_rel" => Order::AcqRel,
        "seq_cst" => Order::SeqCst,
        _ => return None,
    })
}

fn scope(name: &str) -> Option<Scope> {
    Some(match name {
        "singlethread" => Scope::WorkItem,
        "wavefront" => Scope::Wavefront,
        "workgroup" => Scope::Workgroup,
        "agent" => Scope::Agent,
        "system" => Scope::System,
        _ => return None,
    })
}

/// The operation a probe kernel performs, from its name (see mm_lowering.hip's header).
pub fn op_of(kernel: &str) -> Option<Op> {
    let name = kernel.strip_prefix("mm_")?;
    match name {
        "plain_load" => return Some(Op::Load { access: Access::Plain, space: Space::Global }),
        "plain_store" => return Some(Op::Store { access: Access::Plain, space: Space::Global }),
        "barrier" => return Some(Op::Barrier { spaces: Spaces::ALL }),
        "barrier_global" => return Some(Op::Barrier { spaces: Spaces::GLOBAL }),
        "barrier_local" => return Some(Op::Barrier { spaces: Spaces::LOCAL }),
        _ => {}
    }
    let (body, sc) = name.rsplit_once("__")?;
    let scope = scope(sc)?;
    let (space, body) = match body.strip_prefix("lds_") {
        Some(b) => (Space::Local, b),
        None => (Space::Global, body),
    };
    // The order is the last one or two words (acq_rel, seq_cst).
    let (kind, ord) = ["acq_rel", "seq_cst", "relaxed", "acquire", "release"]
        .iter()
        .find_map(|o| body.strip_suffix(o).and_then(|k| k.strip_suffix('_')).map(|k| (k, order(o).unwrap())))?;
    let access = Access::Atomic { order: ord, scope };
    Some(match kind {
        "load" => Op::Load { access, space },
        "store" => Op::Store { access, space },
        "add" => Op::Rmw { rmw: Rmw::Op(RmwOp::Add), access, space, returns: true },
        "add_noret" => Op::Rmw { rmw: Rmw::Op(RmwOp::Add), access, space, returns: false },
        "xchg" => Op::Rmw { rmw: Rmw::Op(RmwOp::Exchange), access, space, returns: true },
        "sub" => Op::Rmw { rmw: Rmw::Op(RmwOp::Sub), access, space, returns: true },
        "and" => Op::Rmw { rmw: Rmw::Op(RmwOp::And), access, space, returns: true },
        "or" => Op::Rmw { rmw: Rmw::Op(RmwOp::Or), access, space, returns: true },
        "xor" => Op::Rmw { rmw: Rmw::Op(RmwOp::Xor), access, space, returns: true },
        "min" => Op::Rmw { rmw: Rmw::Op(RmwOp::Min), access, space, returns: true },
        "max" => Op::Rmw { rmw: Rmw::Op(RmwOp::Max), access, space, returns: true },
        "cas" => Op::Rmw { rmw: Rmw::Cas, access, space, returns: true },
        "fence" => Op::Fence { order: ord, scope, spaces: Spaces::ALL },
        "fence_global" => Op::Fence { order: ord, scope, spaces: Spaces::GLOBAL },
        "fence_local" => Op::Fence { order: ord, scope, spaces: Spaces::LOCAL },
        _ => return None,
    })
}
