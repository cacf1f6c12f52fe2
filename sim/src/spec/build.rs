//! Specs built as values. A client that generates its launches (the scope suite, the
//! validation datasets) makes the [`Spec`] here rather than writing RON text only for the
//! reader to parse it back; [`SpecBuilder::build`] applies the checks a read spec's text goes
//! through, so a built spec and a read one reach the runner with the same guarantees.

use super::checks;
use super::error::{At, SpecError};
use super::expr::Params;
use super::model::{Arg, Args, Buffer, Dispatch, Expect, Expected, Init, MemoryType, OrderedMap, Spec};
use crate::memory::Owner;
use std::path::Path;

/// A spec under construction: code objects, buffers, dispatches and expectations in the order
/// they are added (buffers are allocated in that order, as a file's are).
#[derive(Debug, Clone, Default)]
pub struct SpecBuilder {
    code_objects: Vec<(String, String)>,
    buffers: Vec<(String, Buffer)>,
    dispatches: Vec<Dispatch>,
    expect: Vec<Expect>,
}

impl Spec {
    /// An empty spec to build ([`SpecBuilder`]).
    pub fn builder() -> SpecBuilder {
        SpecBuilder::default()
    }
}

impl SpecBuilder {
    /// A `code_objects` entry: `key` → `path`, relative to the spec's path.
    pub fn code_object(mut self, key: impl Into<String>, path: impl Into<String>) -> SpecBuilder {
        self.code_objects.push((key.into(), path.into()));
        self
    }

    pub fn buffer(mut self, name: impl Into<String>, buffer: Buffer) -> SpecBuilder {
        self.buffers.push((name.into(), buffer));
        self
    }

    pub fn dispatch(mut self, dispatch: Dispatch) -> SpecBuilder {
        self.dispatches.push(dispatch);
        self
    }

    pub fn expect(mut self, expect: Expect) -> SpecBuilder {
        self.expect.push(expect);
        self
    }

    /// The spec, as if read from `path` (which names it in errors and anchors its relative
    /// paths). A key given twice is refused, as the reader refuses it.
    pub fn build(self, path: &Path) -> Result<Spec, SpecError> {
        let code_objects = unique(path, "code_objects", self.code_objects)?;
        let buffers = unique(path, "buffers", self.buffers)?;
        let spec = Spec {
            gpu: None,
            params: OrderedMap::default(),
            param_values: Params::default(),
            code_objects,
            buffers,
            globals: OrderedMap::default(),
            dispatches: self.dispatches,
            expect: self.expect,
        };
        checks::check_text(At { file: path }, &spec)?;
        Ok(spec)
    }
}

/// `entries` as an [`OrderedMap`], or the first key given twice as an error at `field`.
fn unique<V>(path: &Path, field: &str, entries: Vec<(String, V)>) -> Result<OrderedMap<V>, SpecError> {
    for (i, (k, _)) in entries.iter().enumerate() {
        if entries[..i].iter().any(|(x, _)| x == k) {
            return Err(SpecError::field(path, field, format!("duplicate key \"{k}\"")));
        }
    }
    Ok(OrderedMap(entries))
}

impl Buffer {
    /// `bytes` of zeroed device memory (`(bytes: N)` in a file).
    pub fn zeroed(bytes: u64) -> Buffer {
        Buffer { bytes: Some(bytes), init: Init::Zero, memory: MemoryType::Device, owner: Owner::Local, patch: Vec::new() }
    }

    /// The buffer as memory of type `memory` owned by `owner` (`Owner::Gpu(1)`: a peer GPU's
    /// memory; `Owner::Host`: host memory).
    pub fn placed(self, memory: MemoryType, owner: Owner) -> Buffer {
        Buffer { memory, owner, ..self }
    }

    /// The buffer with initial contents `init` instead.
    pub fn init(self, init: Init) -> Buffer {
        Buffer { init, ..self }
    }
}

impl Dispatch {
    /// A launch of `kernel` over `grid` work-items in groups of `block`, no dynamic LDS,
    /// positional arguments.
    pub fn new(kernel: impl Into<String>, grid: [u32; 3], block: [u32; 3], args: Vec<Arg>) -> Dispatch {
        Dispatch { kernel: kernel.into(), grid: grid.into(), block: block.into(), dynamic_lds: 0, args: Args::Positional(args) }
    }

    /// A 1-D launch: `grid` work-items along x in groups of `block`.
    pub fn linear(kernel: impl Into<String>, grid: u32, block: u32, args: Vec<Arg>) -> Dispatch {
        Dispatch::new(kernel, [grid, 1, 1], [block, 1, 1], args)
    }
}

impl Expect {
    /// Buffer `buffer` as reference set `set` computes it.
    pub fn reference(buffer: impl Into<String>, set: impl Into<String>) -> Expect {
        Expect { buffer: buffer.into(), global: None, equals: Expected::Reference(set.into()), tol: 0.0, ty: None, offset: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"Run(code_objects: {"gfx942": "bin/gfx942/vadd.co"},
  buffers: { "a": (bytes: 64, init: Random(F32, 1)), "c": (bytes: 64) },
  dispatches: [ (kernel: "vadd", grid: (16, 1, 1), block: (16, 1, 1), args: [Buffer("a"), Buffer("c"), U32(16)]) ],
  expect: [ (buffer: "c", equals: Reference("vadd")) ],
)"#;

    /// What the reader makes of `TEXT`, field by field, is what the builder makes of the same
    /// launch (the model types have no `PartialEq`, so their debug forms are compared).
    #[test]
    fn a_built_spec_is_the_spec_its_text_reads_as() {
        let path = Path::new("built.ron");
        let read = super::super::parse(TEXT, path).unwrap();
        let built = Spec::builder()
            .code_object("gfx942", "bin/gfx942/vadd.co")
            .buffer("a", Buffer::zeroed(64).init(Init::Random(super::super::model::Ty::F32, 1)))
            .buffer("c", Buffer::zeroed(64))
            .dispatch(Dispatch::linear("vadd", 16, 16, vec![Arg::Buffer("a".into()), Arg::Buffer("c".into()), Arg::U32(16)]))
            .expect(Expect::reference("c", "vadd"))
            .build(path)
            .unwrap();
        assert_eq!(format!("{built:?}"), format!("{read:?}"));
    }

    #[test]
    fn repeated_keys_and_bad_expectations_are_errors() {
        let path = Path::new("twice.ron");
        let e = Spec::builder().buffer("a", Buffer::zeroed(4)).buffer("a", Buffer::zeroed(8)).build(path).unwrap_err();
        assert_eq!(e.to_string(), "twice.ron: buffers: duplicate key \"a\"");
        let no_target = Expect { buffer: String::new(), ..Expect::reference("x", "vadd") };
        let e = Spec::builder().expect(no_target).build(path).unwrap_err();
        assert_eq!(e.to_string(), "twice.ron: expect[0]: names nothing to check: give `buffer` or `global`");
    }
}
