//! HIP graphs: built node by node (`hipGraphAdd*Node`, dependencies) or captured from a stream
//! (`hipStreamBeginCapture` .. `hipStreamEndCapture`), instantiated into an executable graph
//! and launched on a stream (HIP docs, "Graph Management" and "Stream Capture"; CUDA
//! Programming Guide, "CUDA Graphs", whose semantics HIP follows).
//!
//! * Capture: while a stream captures, the kernels (`hipLaunchKernel`/`<<<>>>`,
//!   `hipModuleLaunchKernel`; their hook is [`capture_launch`]), copies and fills (every
//!   `*Async` copy and fill of `api/memory.rs` and `api/memory2d.rs`), host functions
//!   (`hipLaunchHostFunc`) and graph launches issued to it become nodes of the capture's graph,
//!   each depending on the stream's previous node, instead of running. Events recorded on a
//!   capturing stream carry its position, and a stream that waits for such an event joins the
//!   capture (fork/join across streams); `hipStreamEndCapture` on the origin stream ends it for
//!   all of them, and answers `hipErrorStreamCaptureUnjoined` when a joined stream's last work
//!   was never joined back into the origin stream.
//! * A kernel node copies its arguments' bytes when it is made (captured or added): the
//!   `kernelParams` pointers only live for the call.
//! * Instantiation takes a snapshot of the graph in a topological order of its dependencies
//!   (among nodes whose dependencies are done, the earliest added first); later changes to
//!   the graph do not change the executable graph, as in CUDA.
//! * `hipGraphLaunch` runs the snapshot's nodes in that order on the launch stream: each is
//!   run and placed on the stream's timeline as the call it stands for would be (kernels
//!   through `Runtime::launch_values`, the same path as `hipLaunchKernel`), so the graph's
//!   nodes run one after another even where their dependencies would let them overlap.
//!
//! Handles (`hipGraph_t`, `hipGraphNode_t`, `hipGraphExec_t`) are numbers from one counter,
//! never pointers the runtime dereferences: an unknown handle, or one of the wrong kind, is
//! `hipErrorInvalidValue`. The state lives in [`STATE`]; the runtime's lock, when held, is
//! always taken first.

use super::host_funcs::HostFn;
use super::memory::On;
use super::memory2d::{run_copy, run_fill, Copy3d, Fill3d, Memcpy3DParms};
use crate::registry::FunctionRef;
use crate::runtime::{error, Runtime};
use crate::timeline::resolve;
use crate::{put, with_runtime, Dim3};
use hipscope_sim::Geometry;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_char, c_void};
use std::mem::{offset_of, size_of};
use std::sync::{Mutex, MutexGuard};

/// `hipErrorIllegalState`, `hipErrorStreamCapture*` (HIP 5.2 `hip_runtime_api.h`).
use crate::runtime::error::ILLEGAL_STATE;
const STREAM_CAPTURE_UNSUPPORTED: u32 = 900;
const STREAM_CAPTURE_UNMATCHED: u32 = 903;
const STREAM_CAPTURE_UNJOINED: u32 = 904;
const STREAM_CAPTURE_ISOLATION: u32 = 905;

/// `hipStreamCaptureStatus`.
const CAPTURE_STATUS_NONE: u32 = 0;
const CAPTURE_STATUS_ACTIVE: u32 = 1;

/// `hipGraphNodeType` in HIP 5.2's numbering; HIP 6 and 7 number the same list from 0
/// (checked by printing the enumerators with each release's headers), see [`node_type_abi`].
const NODE_KERNEL: u32 = 1;
const NODE_MEMCPY: u32 = 2;
const NODE_MEMSET: u32 = 3;
const NODE_HOST: u32 = 4;
const NODE_GRAPH: u32 = 5;
const NODE_EMPTY: u32 = 6;
const NODE_WAIT_EVENT: u32 = 7;
const NODE_EVENT_RECORD: u32 = 8;

/// A node type as the program's headers number it.
fn node_type_abi(ty: u32) -> u32 {
    match crate::abi::Release::current() {
        crate::abi::Release::Hip5 => ty,
        _ => ty - 1,
    }
}

/// `hipStreamUpdateCaptureDependencies` flags.
const ADD_CAPTURE_DEPENDENCIES: u32 = 0;
const SET_CAPTURE_DEPENDENCIES: u32 = 1;

/// `HIP_LAUNCH_PARAM_*` markers of a kernel's `extra` array.
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;
const PARAM_END: usize = 3;

/// `hipKernelNodeParams` (HIP 5.2 `hip_runtime_api.h`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct KernelNodeParams {
    block_dim: Dim3,
    extra: *mut *mut c_void,
    func: *mut c_void,
    grid_dim: Dim3,
    kernel_params: *mut *mut c_void,
    shared_mem_bytes: u32,
}

/// `hipMemsetParams` (HIP 5.2 `hip_runtime_api.h`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MemsetParams {
    dst: *mut c_void,
    element_size: u32,
    height: usize,
    pitch: usize,
    value: u32,
    width: usize,
}

/// `hipHostNodeParams` (HIP 5.2 `hip_runtime_api.h`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HostNodeParams {
    f: Option<HostFn>,
    user: *mut c_void,
}

// Layouts as the C compiler gives them for the HIP 5.2 headers (`offsetof`/`sizeof` printed
// by a C program including /usr/include/hip/hip_runtime_api.h with -D__HIP_PLATFORM_AMD__).
const _: () = {
    assert!(size_of::<KernelNodeParams>() == 64);
    assert!(offset_of!(KernelNodeParams, extra) == 16 && offset_of!(KernelNodeParams, func) == 24);
    assert!(offset_of!(KernelNodeParams, grid_dim) == 32 && offset_of!(KernelNodeParams, kernel_params) == 48);
    assert!(offset_of!(KernelNodeParams, shared_mem_bytes) == 56);
    assert!(size_of::<MemsetParams>() == 48);
    assert!(offset_of!(MemsetParams, element_size) == 8 && offset_of!(MemsetParams, height) == 16);
    assert!(offset_of!(MemsetParams, pitch) == 24 && offset_of!(MemsetParams, value) == 32);
    assert!(offset_of!(MemsetParams, width) == 40);
    assert!(size_of::<HostNodeParams>() == 16 && offset_of!(HostNodeParams, user) == 8);
};

/// A kernel launch with its arguments' bytes.
#[derive(Clone, Debug)]
struct KernelOp {
    stub: usize,
    f: FunctionRef,
    geo: Geometry,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    values: Vec<Vec<u8>>,
}

/// What a node does.
#[derive(Clone, Debug)]
enum Op {
    Empty,
    Kernel(Box<KernelOp>),
    Copy(Copy3d),
    Fill(Fill3d),
    /// A host function and its argument (as numbers: the state is shared between threads).
    Host {
        f: usize,
        user: usize,
    },
    EventRecord(usize),
    EventWait(usize),
    /// A child graph, copied when the node was made, in its topological order.
    Child(Vec<Op>),
}

impl Op {
    fn node_type(&self) -> u32 {
        match self {
            Op::Empty => NODE_EMPTY,
            Op::Kernel(_) => NODE_KERNEL,
            Op::Copy(_) => NODE_MEMCPY,
            Op::Fill(_) => NODE_MEMSET,
            Op::Host { .. } => NODE_HOST,
            Op::EventRecord(_) => NODE_EVENT_RECORD,
            Op::EventWait(_) => NODE_WAIT_EVENT,
            Op::Child(_) => NODE_GRAPH,
        }
    }
}

struct Node {
    graph: usize,
    op: Op,
    deps: Vec<usize>,
    /// The node this one was cloned from (`hipGraphNodeFindInClone`).
    origin: Option<usize>,
    /// `kernelParams` of `hipGraphKernelNodeGetParams`: pointers into `op`'s argument bytes.
    arg_ptrs: Vec<usize>,
}

#[derive(Default)]
struct Graph {
    /// Its nodes in the order they were added.
    nodes: Vec<usize>,
}

/// An instantiated graph: (node, operation) in the order they run.
struct Exec {
    ops: Vec<(usize, Op)>,
}

/// A stream capturing into a graph.
struct Capture {
    graph: usize,
    id: u64,
    /// The nodes the stream's next operation depends on.
    deps: Vec<usize>,
    /// The stream `hipStreamBeginCapture` was called on (itself for the origin).
    origin: usize,
}

struct State {
    next: usize,
    next_capture_id: u64,
    graphs: BTreeMap<usize, Graph>,
    nodes: BTreeMap<usize, Node>,
    execs: BTreeMap<usize, Exec>,
    /// By resolved stream handle.
    captures: BTreeMap<usize, Capture>,
    /// Events last recorded on a capturing stream: (graph, the stream's position then).
    captured_events: BTreeMap<usize, (usize, Vec<usize>)>,
}

static STATE: Mutex<State> = Mutex::new(State {
    next: 0x1000,
    next_capture_id: 1,
    graphs: BTreeMap::new(),
    nodes: BTreeMap::new(),
    execs: BTreeMap::new(),
    captures: BTreeMap::new(),
    captured_events: BTreeMap::new(),
});

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Drop every graph, node, executable graph and capture ([`super::reset_tables`]).
pub(crate) fn forget_all() {
    let mut st = state();
    st.graphs.clear();
    st.nodes.clear();
    st.execs.clear();
    st.captures.clear();
    st.captured_events.clear();
}

thread_local! {
    /// `hipThreadExchangeStreamCaptureMode`'s per-thread mode (0 global, 1 thread-local,
    /// 2 relaxed). Kept and exchanged; captures do not enforce it.
    static CAPTURE_MODE: Cell<u32> = const { Cell::new(0) };
}

impl State {
    fn handle(&mut self) -> usize {
        self.next += 1;
        self.next
    }

    /// Add a node to `graph` after `deps` (all nodes of `graph`); its handle.
    fn add(&mut self, graph: usize, op: Op, deps: &[usize]) -> Result<usize, u32> {
        if !self.graphs.contains_key(&graph) || deps.iter().any(|d| self.nodes.get(d).is_none_or(|n| n.graph != graph)) {
            return Err(error::INVALID_VALUE);
        }
        let mut unique = Vec::new();
        for d in deps {
            if !unique.contains(d) {
                unique.push(*d);
            }
        }
        let h = self.handle();
        self.nodes.insert(h, Node { graph, op, deps: unique, origin: None, arg_ptrs: Vec::new() });
        if let Some(g) = self.graphs.get_mut(&graph) {
            g.nodes.push(h);
        }
        Ok(h)
    }

    fn new_graph(&mut self) -> usize {
        let h = self.handle();
        self.graphs.insert(h, Graph::default());
        h
    }

    fn remove_graph(&mut self, graph: usize) -> bool {
        let Some(g) = self.graphs.remove(&graph) else { return false };
        for n in g.nodes {
            self.nodes.remove(&n);
        }
        true
    }

    /// The nodes of `graph` in a topological order: of the nodes whose dependencies are all
    /// placed, the earliest added goes next. `None` on a cycle.
    fn topological(&self, graph: usize) -> Option<Vec<usize>> {
        let g = self.graphs.get(&graph)?;
        let mut placed = BTreeSet::new();
        let mut order = Vec::with_capacity(g.nodes.len());
        while order.len() < g.nodes.len() {
            let next = g.nodes.iter().find(|n| !placed.contains(*n) && self.nodes[*n].deps.iter().all(|d| placed.contains(d)))?;
            placed.insert(*next);
            order.push(*next);
        }
        Some(order)
    }

    /// Every node `nodes` depend on, directly or not, and the nodes themselves.
    fn ancestors(&self, nodes: &[usize]) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = nodes.to_vec();
        while let Some(n) = stack.pop() {
            if seen.insert(n) {
                stack.extend(self.nodes.get(&n).map_or(&[][..], |x| &x.deps[..]).iter().copied());
            }
        }
        seen
    }

    /// The capture `stream` belongs to.
    fn capture(&self, stream: usize) -> Option<&Capture> {
        self.captures.get(&resolve(stream))
    }

    /// Record `op` as the capturing `stream`'s next operation; `None` when it is not capturing.
    fn add_captured(&mut self, stream: usize, op: Op) -> Option<u32> {
        let key = resolve(stream);
        let (graph, deps) = {
            let c = self.captures.get(&key)?;
            (c.graph, c.deps.clone())
        };
        Some(match self.add(graph, op, &deps) {
            Ok(node) => {
                if let Some(c) = self.captures.get_mut(&key) {
                    c.deps = vec![node];
                }
                error::SUCCESS
            }
            Err(e) => e,
        })
    }
}

/// Whether `stream` is capturing into a graph.
pub(super) fn is_capturing(stream: usize) -> bool {
    stream != 0 && state().capture(stream).is_some()
}

/// A copy issued to `stream`: `Some(code)` when the stream captures it, `None` to run it.
pub(super) fn capture_copy(stream: usize, c: Copy3d) -> Option<u32> {
    if stream == 0 {
        return None;
    }
    state().add_captured(stream, Op::Copy(c))
}

/// A fill issued to `stream`: `Some(code)` when the stream captures it, `None` to run it.
pub(super) fn capture_fill(stream: usize, f: Fill3d) -> Option<u32> {
    if stream == 0 {
        return None;
    }
    state().add_captured(stream, Op::Fill(f))
}

/// A host function issued to `stream`: `Some(code)` when the stream captures it.
pub(super) fn capture_host(stream: usize, f: usize, user: usize) -> Option<u32> {
    if stream == 0 {
        return None;
    }
    state().add_captured(stream, Op::Host { f, user })
}

/// The hook of `hipLaunchKernel` (and `hipModuleLaunchKernel` with `kernelParams`): when
/// `stream` is capturing, record the launch as a kernel node, its arguments copied now, and
/// give `Some(code)`; otherwise `None`, and the caller launches.
pub(crate) fn capture_launch(rt: &mut Runtime, stub: usize, geo: Geometry, args: *const *const u8, stream: usize) -> Option<u32> {
    if !is_capturing(stream) {
        return None;
    }
    Some(match kernel_op(rt, stub, geo, args, std::ptr::null()) {
        Ok(op) => state().add_captured(stream, Op::Kernel(Box::new(op))).unwrap_or(error::SUCCESS),
        Err(e) => e,
    })
}

/// The hook of `hipModuleLaunchKernel` with an `extra` buffer of packed arguments.
pub(crate) fn capture_launch_packed(rt: &mut Runtime, stub: usize, geo: Geometry, buf: &[u8], stream: usize) -> Option<u32> {
    if !is_capturing(stream) {
        return None;
    }
    Some(match kernel_op_from(rt, stub, geo, |args| packed_values(buf, args)) {
        Ok(op) => state().add_captured(stream, Op::Kernel(Box::new(op))).unwrap_or(error::SUCCESS),
        Err(e) => e,
    })
}

/// `hipEventRecord`'s hook: on a capturing stream the event takes the stream's position in
/// the capture (`Some`); elsewhere it stops standing for a captured position (`None`: the
/// caller records it on the timeline).
pub(super) fn capture_event_record(event: usize, stream: usize) -> Option<u32> {
    let mut st = state();
    match st.capture(stream).map(|c| (c.graph, c.deps.clone())) {
        Some(position) => {
            st.captured_events.insert(event, position);
            Some(error::SUCCESS)
        }
        None => {
            st.captured_events.remove(&event);
            None
        }
    }
}

/// `hipStreamWaitEvent`'s hook: waiting for an event recorded during a capture joins the
/// capture (the waiting stream's next node depends on the event's position); a capturing
/// stream waiting for an event recorded outside captures needs nothing in the graph (it
/// completed before the graph can launch). `None`: neither, the caller waits on the timeline.
pub(super) fn capture_wait_event(stream: usize, event: usize) -> Option<u32> {
    let mut st = state();
    let key = resolve(stream);
    let Some((graph, deps)) = st.captured_events.get(&event).cloned() else {
        return st.captures.contains_key(&key).then_some(error::SUCCESS);
    };
    if key == 0 {
        return Some(STREAM_CAPTURE_UNSUPPORTED);
    }
    let origin = st.captures.iter().find(|(_, c)| c.graph == graph).map(|(s, c)| (c.id, c.origin, *s));
    match st.captures.get_mut(&key) {
        Some(c) if c.graph == graph => {
            for d in deps {
                if !c.deps.contains(&d) {
                    c.deps.push(d);
                }
            }
            Some(error::SUCCESS)
        }
        Some(_) => Some(STREAM_CAPTURE_ISOLATION),
        None => {
            // The event's capture ended (its graph no longer captures): an ordinary wait.
            let (id, origin, _) = origin?;
            st.captures.insert(key, Capture { graph, id, deps, origin });
            Some(error::SUCCESS)
        }
    }
}

/// The kernel's user arguments: (offset, size) in its kernarg segment.
fn user_args(rt: &mut Runtime, stub: usize) -> Result<Vec<(u64, u64)>, u32> {
    let kernel = rt.kernel(stub).map_err(|e| super::launch::report(Err(e)))?;
    Ok(kernel.kernarg.as_ref().map_or_else(Vec::new, |l| l.args.iter().filter(|a| !a.value_kind.is_hidden()).map(|a| (a.offset, a.size)).collect()))
}

/// A kernel node's launch, its argument bytes taken by `values` from the kernel's arguments.
fn kernel_op_from(rt: &mut Runtime, stub: usize, geo: Geometry, values: impl FnOnce(&[(u64, u64)]) -> Result<Vec<Vec<u8>>, u32>) -> Result<KernelOp, u32> {
    // The grid in work-groups (`hipExtModuleLaunchKernel`'s may end in a partial one).
    let grid = std::array::from_fn(|i| geo.grid[i].div_ceil(geo.block[i].max(1)));
    let (block, shared) = (geo.block, geo.dynamic_lds);
    let f = rt.registry.functions.get(&stub).cloned().ok_or(error::INVALID_DEVICE_FUNCTION)?;
    let args = user_args(rt, stub)?;
    let values = values(&args)?;
    Ok(KernelOp { stub, f, geo, grid, block, shared, values })
}

/// A kernel node's launch from `kernelParams` (one pointer per argument) or `extra`.
fn kernel_op(rt: &mut Runtime, stub: usize, geo: Geometry, params: *const *const u8, extra: *const *mut c_void) -> Result<KernelOp, u32> {
    kernel_op_from(rt, stub, geo, |args| {
        if !extra.is_null() {
            // SAFETY: the caller's `extra` array, ended by HIP_LAUNCH_PARAM_END.
            let buf = unsafe { extra_buffer(extra) }?;
            return packed_values(buf, args);
        }
        if args.is_empty() {
            return Ok(Vec::new());
        }
        if params.is_null() {
            return Err(error::INVALID_VALUE);
        }
        args.iter()
            .enumerate()
            .map(|(i, &(_, size))| {
                // SAFETY: HIP's launch contract: one pointer per kernel argument.
                let p = unsafe { *params.add(i) };
                if p.is_null() {
                    return Err(error::INVALID_VALUE);
                }
                // SAFETY: the i-th argument's value, of the size the kernel's metadata gives.
                Ok(unsafe { std::slice::from_raw_parts(p, size as usize) }.to_vec())
            })
            .collect()
    })
}

/// The arguments' bytes out of a buffer packed as the kernarg segment lays them out.
fn packed_values(buf: &[u8], args: &[(u64, u64)]) -> Result<Vec<Vec<u8>>, u32> {
    args.iter()
        .map(|&(offset, size)| {
            let end = offset.checked_add(size).and_then(|e| usize::try_from(e).ok());
            end.and_then(|e| buf.get(offset as usize..e)).map(<[u8]>::to_vec).ok_or(error::INVALID_VALUE)
        })
        .collect()
}

/// The argument buffer of a `HIP_LAUNCH_PARAM_*` array.
///
/// # Safety
/// `extra` is a `HIP_LAUNCH_PARAM_*` array ending with `HIP_LAUNCH_PARAM_END`.
unsafe fn extra_buffer<'a>(extra: *const *mut c_void) -> Result<&'a [u8], u32> {
    let (mut buf, mut size) = (std::ptr::null::<u8>(), None);
    for i in (0..16).step_by(2) {
        // SAFETY: within the caller's array until END.
        let (key, value) = unsafe { (*extra.add(i) as usize, *extra.add(i + 1)) };
        match key {
            PARAM_END => {
                let (Some(n), false) = (size, buf.is_null()) else { return Err(error::INVALID_VALUE) };
                // SAFETY: the caller's buffer of `n` bytes.
                return Ok(unsafe { std::slice::from_raw_parts(buf, n) });
            }
            PARAM_BUFFER_POINTER => buf = value as *const u8,
            // SAFETY: HIP_LAUNCH_PARAM_BUFFER_SIZE is followed by a pointer to a size_t.
            PARAM_BUFFER_SIZE if !value.is_null() => size = Some(unsafe { *(value as *const usize) }),
            _ => return Err(error::INVALID_VALUE),
        }
    }
    Err(error::INVALID_VALUE)
}

/// A kernel node's launch from its `hipKernelNodeParams`.
///
/// # Safety
/// `p` is null or points to a `hipKernelNodeParams` whose `kernelParams`/`extra` follow HIP's
/// launch contract.
unsafe fn kernel_node_op(rt: &mut Runtime, p: *const KernelNodeParams) -> Result<KernelOp, u32> {
    if p.is_null() {
        return Err(error::INVALID_VALUE);
    }
    // SAFETY: the caller's struct.
    let p = unsafe { *p };
    let stub = p.func as usize;
    if !rt.registry.functions.contains_key(&stub) {
        return Err(error::INVALID_DEVICE_FUNCTION);
    }
    let shape = super::launch::Shape::of_blocks(p.grid_dim, p.block_dim, u64::from(p.shared_mem_bytes));
    let geo = super::launch::checked_geometry(rt, stub, &shape)?;
    kernel_op(rt, stub, geo, p.kernel_params as *const *const u8, p.extra)
}

/// A memset node's fill: `height` rows of `width` elements of 1, 2 or 4 bytes.
fn fill_op(p: *const MemsetParams) -> Result<Fill3d, u32> {
    if p.is_null() {
        return Err(error::INVALID_VALUE);
    }
    // SAFETY: the caller's struct.
    let p = unsafe { *p };
    if ![1, 2, 4].contains(&p.element_size) || p.dst.is_null() {
        return Err(error::INVALID_VALUE);
    }
    let pattern = p.value.to_le_bytes()[..p.element_size as usize].to_vec();
    let height = p.height.max(1) as u64;
    let pitch = if height > 1 { p.pitch as u64 } else { (p.width as u64).saturating_mul(u64::from(p.element_size)) };
    Ok(Fill3d { dst: p.dst as u64, pitch, slice: pitch.saturating_mul(height), pattern, width: p.width as u64, height, depth: 1 })
}

/// A host node's function.
fn host_op(p: *const HostNodeParams) -> Result<Op, u32> {
    if p.is_null() {
        return Err(error::INVALID_VALUE);
    }
    // SAFETY: the caller's struct.
    let p = unsafe { *p };
    match p.f {
        Some(f) => Ok(Op::Host { f: f as usize, user: p.user as usize }),
        None => Err(error::INVALID_VALUE),
    }
}

/// Run one operation of a launched graph on `stream`: as the call it stands for.
fn run_op(op: &Op, stream: usize) -> u32 {
    let on = On { stream, blocking: false };
    match op {
        Op::Empty => error::SUCCESS,
        Op::Kernel(k) => with_runtime(|rt| super::launch::report(rt.launch_values(&k.f, k.geo, &k.values, stream))),
        Op::Copy(c) => with_runtime(|rt| run_copy(rt, c, on)),
        Op::Fill(f) => with_runtime(|rt| run_fill(rt, f, on)),
        Op::Host { f, user } => {
            with_runtime(|rt| {
                super::host_funcs::place_host(rt, stream);
                error::SUCCESS
            });
            // SAFETY: a non-null `hipHostFn_t` stored from the program's node parameters.
            let f: HostFn = unsafe { std::mem::transmute::<usize, HostFn>(*f) };
            // SAFETY: the program's host function and its argument.
            unsafe { f(*user as *mut c_void) };
            error::SUCCESS
        }
        Op::EventRecord(e) => super::streams::hipEventRecord(*e as *mut c_void, stream as *mut c_void),
        Op::EventWait(e) => super::streams::hipStreamWaitEvent(stream as *mut c_void, *e as *mut c_void, 0),
        Op::Child(ops) => ops.iter().map(|o| run_op(o, stream)).find(|&c| c != error::SUCCESS).unwrap_or(error::SUCCESS),
    }
}

/// The dependencies array of a `hipGraphAdd*Node` call.
///
/// # Safety
/// `deps` is null (with `n` 0) or points to `n` node handles.
unsafe fn deps_of(deps: *const *mut c_void, n: usize) -> Result<Vec<usize>, u32> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if deps.is_null() {
        return Err(error::INVALID_VALUE);
    }
    // SAFETY: the caller's array of `n` handles.
    Ok(unsafe { std::slice::from_raw_parts(deps, n) }.iter().map(|&d| d as usize).collect())
}

/// Add a node made by `make` (under the runtime's lock) to `graph` after `deps`.
///
/// # Safety
/// `node` is writable; `deps` as for [`deps_of`].
unsafe fn add_node(node: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, n: usize, make: impl FnOnce(&mut Runtime) -> Result<Op, u32>) -> u32 {
    if node.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    // SAFETY: the caller's contract.
    let deps = match unsafe { deps_of(deps, n) } {
        Ok(d) => d,
        Err(e) => return with_runtime(|_| e),
    };
    with_runtime(|rt| {
        let op = match make(rt) {
            Ok(op) => op,
            Err(e) => return e,
        };
        let mut st = state();
        match st.add(graph as usize, op, &deps) {
            // SAFETY: non-null, the caller's out-parameter.
            Ok(h) => unsafe { put(node, h as *mut c_void) },
            Err(e) => e,
        }
    })
}

/// Write a list of handles the `hipGraphGet*` way: with no array, only the count; else up to
/// `*count` handles (the rest of a longer array nulled) and the actual count.
///
/// # Safety
/// `count` is writable; `out` null or writable for `*count` handles.
unsafe fn put_list(out: *mut *mut c_void, count: *mut usize, list: &[usize]) -> u32 {
    if count.is_null() {
        return error::INVALID_VALUE;
    }
    if !out.is_null() {
        // SAFETY: the caller's array of `*count` entries.
        let room = unsafe { *count };
        for i in 0..room {
            // SAFETY: within the caller's array.
            unsafe { *out.add(i) = list.get(i).map_or(std::ptr::null_mut(), |&h| h as *mut c_void) };
        }
        if room < list.len() {
            return error::SUCCESS;
        }
    }
    // SAFETY: non-null, the caller's out-parameter.
    unsafe { put(count, list.len()) }
}

// ---- Stream capture --------------------------------------------------------------------------

#[no_mangle]
pub extern "C" fn hipStreamBeginCapture(stream: *mut c_void, _mode: u32) -> u32 {
    with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        // The legacy null stream cannot capture (CUDA: cudaErrorStreamCaptureUnsupported).
        if stream.is_null() {
            return STREAM_CAPTURE_UNSUPPORTED;
        }
        let mut st = state();
        let key = resolve(stream as usize);
        if st.captures.contains_key(&key) {
            return ILLEGAL_STATE;
        }
        let graph = st.new_graph();
        let id = st.next_capture_id;
        st.next_capture_id += 1;
        st.captures.insert(key, Capture { graph, id, deps: Vec::new(), origin: key });
        error::SUCCESS
    })
}

/// # Safety
/// `graph` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipStreamEndCapture(stream: *mut c_void, graph: *mut *mut c_void) -> u32 {
    if graph.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        let mut st = state();
        let key = resolve(stream as usize);
        let Some(c) = st.captures.get(&key) else { return ILLEGAL_STATE };
        if c.origin != key {
            return STREAM_CAPTURE_UNMATCHED;
        }
        let (g, origin_deps) = (c.graph, c.deps.clone());
        let joined = st.ancestors(&origin_deps);
        let members: Vec<usize> = st.captures.iter().filter(|(_, c)| c.graph == g).map(|(s, _)| *s).collect();
        let unjoined = members.iter().any(|s| st.captures[s].deps.iter().any(|d| !joined.contains(d)));
        for s in members {
            st.captures.remove(&s);
        }
        st.captured_events.retain(|_, (eg, _)| *eg != g);
        if unjoined {
            st.remove_graph(g);
            return STREAM_CAPTURE_UNJOINED;
        }
        // SAFETY: non-null, the caller's out-parameter.
        unsafe { put(graph, g as *mut c_void) }
    })
}

/// # Safety
/// `status` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipStreamIsCapturing(stream: *mut c_void, status: *mut u32) -> u32 {
    with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        let s = if is_capturing(stream as usize) { CAPTURE_STATUS_ACTIVE } else { CAPTURE_STATUS_NONE };
        // SAFETY: the caller's out-parameter (null is refused by `put`).
        unsafe { put(status, s) }
    })
}

/// # Safety
/// `status` is writable; `id` null or writable.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo(stream: *mut c_void, status: *mut u32, id: *mut u64) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipStreamGetCaptureInfo_v2(stream, status, id, std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut()) }
}

/// The capture's status, id, graph and the nodes the stream's next operation will depend on
/// (an array valid until the stream's next captured operation).
///
/// # Safety
/// `status` is writable; the others null or writable.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo_v2(
    stream: *mut c_void,
    status: *mut u32,
    id: *mut u64,
    graph: *mut *mut c_void,
    deps: *mut *const *mut c_void,
    num_deps: *mut usize,
) -> u32 {
    if status.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        let st = state();
        let c = if stream.is_null() { None } else { st.capture(stream as usize) };
        // SAFETY: the caller's out-parameters, each checked for null.
        unsafe {
            *status = if c.is_some() { CAPTURE_STATUS_ACTIVE } else { CAPTURE_STATUS_NONE };
            if let Some(c) = c {
                if !id.is_null() {
                    *id = c.id;
                }
                if !graph.is_null() {
                    *graph = c.graph as *mut c_void;
                }
                if !deps.is_null() {
                    *deps = c.deps.as_ptr() as *const *mut c_void;
                }
                if !num_deps.is_null() {
                    *num_deps = c.deps.len();
                }
            }
        }
        error::SUCCESS
    })
}

/// # Safety
/// `deps` points to `n` node handles of the capture's graph.
#[no_mangle]
pub unsafe extern "C" fn hipStreamUpdateCaptureDependencies(stream: *mut c_void, deps: *mut *mut c_void, n: usize, flags: u32) -> u32 {
    // SAFETY: the caller's contract.
    let list = match unsafe { deps_of(deps, n) } {
        Ok(l) => l,
        Err(e) => return with_runtime(|_| e),
    };
    with_runtime(|_| {
        let mut st = state();
        let Some(graph) = st.capture(stream as usize).map(|c| c.graph) else { return ILLEGAL_STATE };
        if list.iter().any(|d| st.nodes.get(d).is_none_or(|n| n.graph != graph)) {
            return error::INVALID_VALUE;
        }
        let Some(c) = st.captures.get_mut(&resolve(stream as usize)) else { return ILLEGAL_STATE };
        match flags {
            SET_CAPTURE_DEPENDENCIES => c.deps = list,
            ADD_CAPTURE_DEPENDENCIES => {
                for d in list {
                    if !c.deps.contains(&d) {
                        c.deps.push(d);
                    }
                }
            }
            _ => return error::INVALID_VALUE,
        }
        error::SUCCESS
    })
}

/// # Safety
/// `mode` is readable and writable.
#[no_mangle]
pub unsafe extern "C" fn hipThreadExchangeStreamCaptureMode(mode: *mut u32) -> u32 {
    if mode.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    // SAFETY: non-null, the caller's variable.
    let new = unsafe { *mode };
    if new > 2 {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    let old = CAPTURE_MODE.with(|m| m.replace(new));
    // SAFETY: as above.
    with_runtime(|_| unsafe { put(mode, old) })
}

// ---- Graphs and nodes ------------------------------------------------------------------------

/// # Safety
/// `graph` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGraphCreate(graph: *mut *mut c_void, flags: u32) -> u32 {
    if graph.is_null() || flags != 0 {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|_| {
        let g = state().new_graph();
        // SAFETY: non-null, the caller's out-parameter.
        unsafe { put(graph, g as *mut c_void) }
    })
}

/// A null graph is `hipErrorInvalidValue`, one destroyed before `hipErrorIllegalState` (clr
/// `hipamd/src/hip_graph.cpp`, `hipGraphDestroy`: "if graph is not valid its destroyed
/// already").
#[no_mangle]
pub extern "C" fn hipGraphDestroy(graph: *mut c_void) -> u32 {
    with_runtime(|_| {
        if graph.is_null() {
            return error::INVALID_VALUE;
        }
        if state().remove_graph(graph as usize) {
            error::SUCCESS
        } else {
            error::ILLEGAL_STATE
        }
    })
}

/// # Safety
/// `node` is writable; `deps` holds `n` nodes of `graph`; `params` a `hipKernelNodeParams`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddKernelNode(
    node: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    n: usize,
    params: *const KernelNodeParams,
) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { add_node(node, graph, deps, n, |rt| kernel_node_op(rt, params).map(|k| Op::Kernel(Box::new(k)))) }
}

/// # Safety
/// As `hipGraphAddKernelNode`; `params` a `hipMemcpy3DParms`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddMemcpyNode(
    node: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    n: usize,
    params: *const Memcpy3DParms,
) -> u32 {
    // SAFETY: the caller's contract.
    unsafe {
        add_node(node, graph, deps, n, |rt| {
            if params.is_null() {
                return Err(error::INVALID_VALUE);
            }
            match Copy3d::from_parms(&*params) {
                Ok(c) => Ok(Op::Copy(c)),
                Err(error::NOT_SUPPORTED) => Err(rt.unsupported("hipGraphAddMemcpyNode with a hipArray side")),
                Err(e) => Err(e),
            }
        })
    }
}

/// # Safety
/// As `hipGraphAddKernelNode`; `dst`/`src` valid for `count` bytes when the graph runs.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphAddMemcpyNode1D(
    node: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    n: usize,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: u32,
) -> u32 {
    // SAFETY: the caller's contract.
    unsafe {
        add_node(node, graph, deps, n, |_| {
            if kind > 4 {
                return Err(error::INVALID_MEMCPY_DIRECTION);
            }
            Ok(Op::Copy(Copy3d::linear(dst as u64, src as u64, count as u64, kind)))
        })
    }
}

/// # Safety
/// As `hipGraphAddKernelNode`; `params` a `hipMemsetParams`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddMemsetNode(
    node: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    n: usize,
    params: *const MemsetParams,
) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { add_node(node, graph, deps, n, |_| fill_op(params).map(Op::Fill)) }
}

/// # Safety
/// As `hipGraphAddKernelNode`; `params` a `hipHostNodeParams`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddHostNode(
    node: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    n: usize,
    params: *const HostNodeParams,
) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { add_node(node, graph, deps, n, |_| host_op(params)) }
}

/// # Safety
/// As `hipGraphAddKernelNode`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEmptyNode(node: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, n: usize) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { add_node(node, graph, deps, n, |_| Ok(Op::Empty)) }
}

/// # Safety
/// As `hipGraphAddKernelNode`; `event` a HIP event.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEventRecordNode(node: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, n: usize, event: *mut c_void) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { add_node(node, graph, deps, n, |_| if event.is_null() { Err(error::INVALID_VALUE) } else { Ok(Op::EventRecord(event as usize)) }) }
}

/// # Safety
/// As `hipGraphAddKernelNode`; `event` a HIP event.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEventWaitNode(node: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, n: usize, event: *mut c_void) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { add_node(node, graph, deps, n, |_| if event.is_null() { Err(error::INVALID_VALUE) } else { Ok(Op::EventWait(event as usize)) }) }
}

/// The child graph is copied into the node now (CUDA clones it).
///
/// # Safety
/// As `hipGraphAddKernelNode`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddChildGraphNode(node: *mut *mut c_void, graph: *mut c_void, deps: *const *mut c_void, n: usize, child: *mut c_void) -> u32 {
    // SAFETY: the caller's contract.
    unsafe {
        add_node(node, graph, deps, n, |_| {
            let st = state();
            let order = st.topological(child as usize).ok_or(error::INVALID_VALUE)?;
            Ok(Op::Child(order.iter().map(|h| st.nodes[h].op.clone()).collect()))
        })
    }
}

/// Add (`add`) or remove edges `from[i] -> to[i]`.
///
/// # Safety
/// `from` and `to` hold `n` node handles each.
unsafe fn edit_edges(graph: *mut c_void, from: *const *mut c_void, to: *const *mut c_void, n: usize, add: bool) -> u32 {
    // SAFETY: the caller's contract.
    let (from, to) = match unsafe { (deps_of(from, n), deps_of(to, n)) } {
        (Ok(f), Ok(t)) => (f, t),
        _ => return with_runtime(|_| error::INVALID_VALUE),
    };
    with_runtime(|_| {
        let mut st = state();
        let g = graph as usize;
        if !st.graphs.contains_key(&g) || from.iter().chain(&to).any(|h| st.nodes.get(h).is_none_or(|x| x.graph != g)) {
            return error::INVALID_VALUE;
        }
        for (f, t) in from.iter().zip(&to) {
            let Some(node) = st.nodes.get_mut(t) else { return error::INVALID_VALUE };
            if add {
                if !node.deps.contains(f) {
                    node.deps.push(*f);
                }
            } else {
                let before = node.deps.len();
                node.deps.retain(|d| d != f);
                if node.deps.len() == before {
                    return error::INVALID_VALUE;
                }
            }
        }
        error::SUCCESS
    })
}

/// # Safety
/// `from` and `to` hold `n` node handles each.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddDependencies(graph: *mut c_void, from: *const *mut c_void, to: *const *mut c_void, n: usize) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { edit_edges(graph, from, to, n, true) }
}

/// # Safety
/// `from` and `to` hold `n` node handles each.
#[no_mangle]
pub unsafe extern "C" fn hipGraphRemoveDependencies(graph: *mut c_void, from: *const *mut c_void, to: *const *mut c_void, n: usize) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { edit_edges(graph, from, to, n, false) }
}

/// # Safety
/// `count` is writable; `nodes` null or writable for `*count` handles.
#[no_mangle]
pub unsafe extern "C" fn hipGraphGetNodes(graph: *mut c_void, nodes: *mut *mut c_void, count: *mut usize) -> u32 {
    with_runtime(|_| {
        let st = state();
        let Some(g) = st.graphs.get(&(graph as usize)) else { return error::INVALID_VALUE };
        // SAFETY: the caller's contract.
        unsafe { put_list(nodes, count, &g.nodes) }
    })
}

/// # Safety
/// As `hipGraphGetNodes`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphGetRootNodes(graph: *mut c_void, nodes: *mut *mut c_void, count: *mut usize) -> u32 {
    with_runtime(|_| {
        let st = state();
        let Some(g) = st.graphs.get(&(graph as usize)) else { return error::INVALID_VALUE };
        let roots: Vec<usize> = g.nodes.iter().copied().filter(|n| st.nodes[n].deps.is_empty()).collect();
        // SAFETY: the caller's contract.
        unsafe { put_list(nodes, count, &roots) }
    })
}

/// # Safety
/// `count` is writable; `from`/`to` null or writable for `*count` handles each.
#[no_mangle]
pub unsafe extern "C" fn hipGraphGetEdges(graph: *mut c_void, from: *mut *mut c_void, to: *mut *mut c_void, count: *mut usize) -> u32 {
    with_runtime(|_| {
        let st = state();
        let Some(g) = st.graphs.get(&(graph as usize)) else { return error::INVALID_VALUE };
        if count.is_null() || from.is_null() != to.is_null() {
            return error::INVALID_VALUE;
        }
        let edges: Vec<(usize, usize)> = g.nodes.iter().flat_map(|t| st.nodes[t].deps.iter().map(move |f| (*f, *t))).collect();
        if !from.is_null() {
            // SAFETY: non-null, the caller's count of entries in each array.
            let room = unsafe { *count };
            for i in 0..room {
                let (f, t) = edges.get(i).map_or((0, 0), |&(f, t)| (f, t));
                // SAFETY: within the caller's arrays of `room` entries.
                unsafe {
                    *from.add(i) = f as *mut c_void;
                    *to.add(i) = t as *mut c_void;
                }
            }
            if room < edges.len() {
                return error::SUCCESS;
            }
        }
        // SAFETY: non-null, the caller's out-parameter.
        unsafe { put(count, edges.len()) }
    })
}

/// # Safety
/// `count` is writable; `out` null or writable for `*count` handles.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetDependencies(node: *mut c_void, out: *mut *mut c_void, count: *mut usize) -> u32 {
    with_runtime(|_| {
        let st = state();
        let Some(n) = st.nodes.get(&(node as usize)) else { return error::INVALID_VALUE };
        // SAFETY: the caller's contract.
        unsafe { put_list(out, count, &n.deps) }
    })
}

/// # Safety
/// `count` is writable; `out` null or writable for `*count` handles.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetDependentNodes(node: *mut c_void, out: *mut *mut c_void, count: *mut usize) -> u32 {
    with_runtime(|_| {
        let st = state();
        let h = node as usize;
        let Some(n) = st.nodes.get(&h) else { return error::INVALID_VALUE };
        let dependents: Vec<usize> = st.graphs[&n.graph].nodes.iter().copied().filter(|d| st.nodes[d].deps.contains(&h)).collect();
        // SAFETY: the caller's contract.
        unsafe { put_list(out, count, &dependents) }
    })
}

/// # Safety
/// `ty` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetType(node: *mut c_void, ty: *mut u32) -> u32 {
    with_runtime(|_| match state().nodes.get(&(node as usize)) {
        // SAFETY: the caller's out-parameter (null is refused by `put`).
        Some(n) => unsafe { put(ty, node_type_abi(n.op.node_type())) },
        None => error::INVALID_VALUE,
    })
}

#[no_mangle]
pub extern "C" fn hipGraphDestroyNode(node: *mut c_void) -> u32 {
    with_runtime(|_| {
        let mut st = state();
        let h = node as usize;
        let Some(n) = st.nodes.remove(&h) else { return error::INVALID_VALUE };
        if let Some(g) = st.graphs.get_mut(&n.graph) {
            g.nodes.retain(|x| *x != h);
        }
        for other in st.nodes.values_mut() {
            other.deps.retain(|d| *d != h);
        }
        error::SUCCESS
    })
}

/// # Safety
/// `clone` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGraphClone(clone: *mut *mut c_void, graph: *mut c_void) -> u32 {
    if clone.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|_| {
        let mut st = state();
        let Some(nodes) = st.graphs.get(&(graph as usize)).map(|g| g.nodes.clone()) else { return error::INVALID_VALUE };
        let g = st.new_graph();
        let mut map = BTreeMap::new();
        for old in nodes {
            let (op, deps) = (st.nodes[&old].op.clone(), st.nodes[&old].deps.iter().map(|d| map[d]).collect::<Vec<usize>>());
            let Ok(h) = st.add(g, op, &deps) else { return error::INVALID_VALUE };
            if let Some(n) = st.nodes.get_mut(&h) {
                n.origin = Some(old);
            }
            map.insert(old, h);
        }
        // SAFETY: non-null, the caller's out-parameter.
        unsafe { put(clone, g as *mut c_void) }
    })
}

/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeFindInClone(out: *mut *mut c_void, original: *mut c_void, clone: *mut c_void) -> u32 {
    with_runtime(|_| {
        let st = state();
        let Some(g) = st.graphs.get(&(clone as usize)) else { return error::INVALID_VALUE };
        match g.nodes.iter().find(|n| st.nodes[*n].origin == Some(original as usize)) {
            // SAFETY: the caller's out-parameter (null is refused by `put`).
            Some(&h) => unsafe { put(out, h as *mut c_void) },
            None => error::INVALID_VALUE,
        }
    })
}

/// # Safety
/// `params` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGraphKernelNodeGetParams(node: *mut c_void, params: *mut KernelNodeParams) -> u32 {
    if params.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|_| {
        let mut st = state();
        let Some(n) = st.nodes.get_mut(&(node as usize)) else { return error::INVALID_VALUE };
        let Op::Kernel(k) = &n.op else { return error::INVALID_VALUE };
        n.arg_ptrs = k.values.iter().map(|v| v.as_ptr() as usize).collect();
        let d = |v: [u32; 3]| Dim3 { x: v[0], y: v[1], z: v[2] };
        let p = KernelNodeParams {
            block_dim: d(k.block),
            extra: std::ptr::null_mut(),
            func: k.stub as *mut c_void,
            grid_dim: d(k.grid),
            kernel_params: n.arg_ptrs.as_mut_ptr() as *mut *mut c_void,
            shared_mem_bytes: k.shared,
        };
        // SAFETY: non-null, the caller's struct.
        unsafe { put(params, p) }
    })
}

/// # Safety
/// `params` a `hipKernelNodeParams` following HIP's launch contract.
#[no_mangle]
pub unsafe extern "C" fn hipGraphKernelNodeSetParams(node: *mut c_void, params: *const KernelNodeParams) -> u32 {
    with_runtime(|rt| {
        // SAFETY: the caller's contract.
        let op = match unsafe { kernel_node_op(rt, params) } {
            Ok(k) => Op::Kernel(Box::new(k)),
            Err(e) => return e,
        };
        set_node_op(node as usize, op, NODE_KERNEL)
    })
}

/// # Safety
/// `params` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGraphHostNodeGetParams(node: *mut c_void, params: *mut HostNodeParams) -> u32 {
    with_runtime(|_| match state().nodes.get(&(node as usize)).map(|n| &n.op) {
        Some(Op::Host { f, user }) => {
            // SAFETY: a non-null `hipHostFn_t` stored from the program's node parameters.
            let f: HostFn = unsafe { std::mem::transmute::<usize, HostFn>(*f) };
            // SAFETY: the caller's out-parameter (null is refused by `put`).
            unsafe { put(params, HostNodeParams { f: Some(f), user: *user as *mut c_void }) }
        }
        _ => error::INVALID_VALUE,
    })
}

/// # Safety
/// `params` a `hipHostNodeParams`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphHostNodeSetParams(node: *mut c_void, params: *const HostNodeParams) -> u32 {
    with_runtime(|_| match host_op(params) {
        Ok(op) => set_node_op(node as usize, op, NODE_HOST),
        Err(e) => e,
    })
}

/// # Safety
/// `params` a `hipMemsetParams`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphMemsetNodeSetParams(node: *mut c_void, params: *const MemsetParams) -> u32 {
    with_runtime(|_| match fill_op(params) {
        Ok(f) => set_node_op(node as usize, Op::Fill(f), NODE_MEMSET),
        Err(e) => e,
    })
}

/// # Safety
/// `dst`/`src` valid for `count` bytes when the graph runs.
#[no_mangle]
pub unsafe extern "C" fn hipGraphMemcpyNodeSetParams1D(node: *mut c_void, dst: *mut c_void, src: *const c_void, count: usize, kind: u32) -> u32 {
    with_runtime(|_| set_node_op(node as usize, Op::Copy(Copy3d::linear(dst as u64, src as u64, count as u64, kind)), NODE_MEMCPY))
}

/// Replace a node's operation by one of the same type.
fn set_node_op(node: usize, op: Op, ty: u32) -> u32 {
    let mut st = state();
    match st.nodes.get_mut(&node) {
        Some(n) if n.op.node_type() == ty => {
            n.op = op;
            error::SUCCESS
        }
        _ => error::INVALID_VALUE,
    }
}

// ---- Executable graphs -----------------------------------------------------------------------

/// Snapshot `graph` in topological order.
fn instantiate(graph: usize) -> Result<usize, u32> {
    let mut st = state();
    let order = st.topological(graph).ok_or(error::INVALID_VALUE)?;
    let ops = order.iter().map(|h| (*h, st.nodes[h].op.clone())).collect();
    let h = st.handle();
    st.execs.insert(h, Exec { ops });
    Ok(h)
}

/// # Safety
/// `exec` is writable; `error_node` null or writable; `log` null or writable for `log_size`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphInstantiate(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    error_node: *mut *mut c_void,
    log: *mut c_char,
    log_size: usize,
) -> u32 {
    if exec.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|_| {
        // SAFETY: the caller's optional out-parameters.
        unsafe {
            if !error_node.is_null() {
                *error_node = std::ptr::null_mut();
            }
            if !log.is_null() && log_size > 0 {
                *log = 0;
            }
        }
        match instantiate(graph as usize) {
            // SAFETY: non-null, the caller's out-parameter.
            Ok(h) => unsafe { put(exec, h as *mut c_void) },
            Err(e) => e,
        }
    })
}

/// # Safety
/// `exec` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGraphInstantiateWithFlags(exec: *mut *mut c_void, graph: *mut c_void, _flags: u64) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipGraphInstantiate(exec, graph, std::ptr::null_mut(), std::ptr::null_mut(), 0) }
}

#[no_mangle]
pub extern "C" fn hipGraphExecDestroy(exec: *mut c_void) -> u32 {
    with_runtime(|_| if state().execs.remove(&(exec as usize)).is_some() { error::SUCCESS } else { error::INVALID_VALUE })
}

/// Run an executable graph's nodes in order on `stream` (see the module documentation); on a
/// capturing stream, the graph becomes one child-graph node of the capture.
#[no_mangle]
pub extern "C" fn hipGraphLaunch(exec: *mut c_void, stream: *mut c_void) -> u32 {
    // ROCm checks the executable graph first (`hipErrorInvalidValue` for a null or destroyed one),
    // then the stream (`hipGraphLaunch_common`).
    let ops = with_runtime(|rt| {
        if !state().execs.contains_key(&(exec as usize)) {
            return error::INVALID_VALUE;
        }
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        error::SUCCESS
    });
    if ops != error::SUCCESS {
        return ops;
    }
    let (ops, captured) = {
        let mut st = state();
        let Some(e) = st.execs.get(&(exec as usize)) else {
            drop(st);
            return with_runtime(|_| error::INVALID_VALUE);
        };
        let ops: Vec<Op> = e.ops.iter().map(|(_, op)| op.clone()).collect();
        if stream.is_null() {
            (ops, None)
        } else {
            let captured = st.add_captured(stream as usize, Op::Child(ops.clone()));
            (ops, captured)
        }
    };
    if let Some(code) = captured {
        return with_runtime(|_| code);
    }
    for op in &ops {
        let code = run_op(op, stream as usize);
        if code != error::SUCCESS {
            return code;
        }
    }
    with_runtime(|_| error::SUCCESS)
}

/// # Safety
/// `params` a `hipKernelNodeParams` following HIP's launch contract.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecKernelNodeSetParams(exec: *mut c_void, node: *mut c_void, params: *const KernelNodeParams) -> u32 {
    with_runtime(|rt| {
        // SAFETY: the caller's contract.
        let op = match unsafe { kernel_node_op(rt, params) } {
            Ok(k) => Op::Kernel(Box::new(k)),
            Err(e) => return e,
        };
        set_exec_op(exec as usize, node as usize, op)
    })
}

/// # Safety
/// `params` a `hipHostNodeParams`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecHostNodeSetParams(exec: *mut c_void, node: *mut c_void, params: *const HostNodeParams) -> u32 {
    with_runtime(|_| match host_op(params) {
        Ok(op) => set_exec_op(exec as usize, node as usize, op),
        Err(e) => e,
    })
}

/// # Safety
/// `params` a `hipMemsetParams`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecMemsetNodeSetParams(exec: *mut c_void, node: *mut c_void, params: *const MemsetParams) -> u32 {
    with_runtime(|_| match fill_op(params) {
        Ok(f) => set_exec_op(exec as usize, node as usize, Op::Fill(f)),
        Err(e) => e,
    })
}

/// # Safety
/// `dst`/`src` valid for `count` bytes when the graph runs.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecMemcpyNodeSetParams1D(
    exec: *mut c_void,
    node: *mut c_void,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: u32,
) -> u32 {
    with_runtime(|_| set_exec_op(exec as usize, node as usize, Op::Copy(Copy3d::linear(dst as u64, src as u64, count as u64, kind))))
}

/// # Safety
/// `params` a `hipMemcpy3DParms`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecMemcpyNodeSetParams(exec: *mut c_void, node: *mut c_void, params: *const Memcpy3DParms) -> u32 {
    if params.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    // SAFETY: non-null, the caller's struct.
    let parsed = Copy3d::from_parms(unsafe { &*params });
    with_runtime(|rt| match parsed {
        Ok(c) => set_exec_op(exec as usize, node as usize, Op::Copy(c)),
        Err(error::NOT_SUPPORTED) => rt.unsupported("hipGraphExecMemcpyNodeSetParams with a hipArray side"),
        Err(e) => e,
    })
}

/// Replace the operation an executable graph runs for `node` (of the same type).
fn set_exec_op(exec: usize, node: usize, op: Op) -> u32 {
    let mut st = state();
    let Some(e) = st.execs.get_mut(&exec) else { return error::INVALID_VALUE };
    match e.ops.iter_mut().find(|(h, _)| *h == node) {
        Some((_, old)) if old.node_type() == op.node_type() => {
            *old = op;
            error::SUCCESS
        }
        _ => error::INVALID_VALUE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> State {
        State {
            next: 0x1000,
            next_capture_id: 1,
            graphs: BTreeMap::new(),
            nodes: BTreeMap::new(),
            execs: BTreeMap::new(),
            captures: BTreeMap::new(),
            captured_events: BTreeMap::new(),
        }
    }

    #[test]
    fn topological_order_follows_dependencies_then_insertion() {
        let mut st = fresh();
        let g = st.new_graph();
        // d depends on c and a; c on b; b on nothing; a on nothing. Added in order d? No:
        // nodes must exist before they are depended on, so edges are added afterwards.
        let a = st.add(g, Op::Empty, &[]).unwrap();
        let b = st.add(g, Op::Empty, &[]).unwrap();
        let c = st.add(g, Op::Empty, &[b]).unwrap();
        let d = st.add(g, Op::Empty, &[c, a]).unwrap();
        // a now waits for d's sibling c: a -> after c.
        st.nodes.get_mut(&a).unwrap().deps.push(c);
        assert_eq!(st.topological(g), Some(vec![b, c, a, d]));
        // A cycle has no order.
        st.nodes.get_mut(&b).unwrap().deps.push(d);
        assert_eq!(st.topological(g), None);
        // A dependency in another graph is refused.
        let h = st.new_graph();
        assert_eq!(st.add(h, Op::Empty, &[a]), Err(error::INVALID_VALUE));
    }

    #[test]
    fn a_captured_fork_must_join_back() {
        let mut st = fresh();
        let g = st.new_graph();
        st.captures.insert(10, Capture { graph: g, id: 1, deps: vec![], origin: 10 });
        assert_eq!(st.add_captured(10, Op::Empty), Some(error::SUCCESS));
        let first = st.captures[&10].deps.clone();
        // Stream 11 forks from the origin's position and adds a node.
        st.captures.insert(11, Capture { graph: g, id: 1, deps: first.clone(), origin: 10 });
        st.add_captured(11, Op::Empty);
        let forked = st.captures[&11].deps.clone();
        assert_eq!(st.nodes[&forked[0]].deps, first);
        // Not joined: the origin's ancestors miss the forked node.
        assert!(!st.ancestors(&st.captures[&10].deps.clone()).contains(&forked[0]));
        // Joined: the origin's next node depends on both.
        st.captures.get_mut(&10).unwrap().deps.push(forked[0]);
        st.add_captured(10, Op::Empty);
        assert!(st.ancestors(&st.captures[&10].deps.clone()).contains(&forked[0]));
        // A stream that does not capture records nothing.
        assert_eq!(st.add_captured(12, Op::Empty), None);
    }
}
