//! `CodeObject::find_kernel`: kernels by the name in the code object, the descriptor symbol or
//! the C++ source name. `workloads/bin/gfx90a/cxx_names.co` is built from
//! `workloads/src/cxx_names.hip`: two `scale` overloads and `demo::offset<1>`, `demo::offset<2>`;
//! the demangled names below are what `llvm-cxxfilt-19` prints for the mangled ones (without
//! the return type of the template instances).

use hipscope_isa::codeobj::{self, CodeObject, KernelLookupError};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load(rel: &str) -> CodeObject {
    let bytes = std::fs::read(root().join(rel)).unwrap();
    codeobj::load(&bytes, None).unwrap()
}

fn found(co: &CodeObject, q: &str) -> Result<String, KernelLookupError> {
    co.find_kernel(q).map(|k| k.name.clone())
}

#[test]
fn cxx_kernels_by_any_spelling() {
    let co = load("workloads/bin/gfx90a/cxx_names.co");
    let cases = [
        ("_Z5scalePffj", "_Z5scalePffj"),
        ("_Z5scalePddj.kd", "_Z5scalePddj"),
        ("scale(float*, float, unsigned int)", "_Z5scalePffj"),
        ("scale(float *, float, unsigned int)", "_Z5scalePffj"),
        ("scale(double*,double,unsigned int)", "_Z5scalePddj"),
        ("demo::offset<2>(int*, unsigned int)", "_ZN4demo6offsetILi2EEEvPij"),
        ("demo::offset<1>", "_ZN4demo6offsetILi1EEEvPij"),
        ("offset<2>", "_ZN4demo6offsetILi2EEEvPij"),
    ];
    for (q, want) in cases {
        assert_eq!(found(&co, q).as_deref(), Ok(want), "{q}");
    }
    assert_eq!(co.kernels[0].demangled().as_deref(), Some("scale(float*, float, unsigned int)"));
}

#[test]
fn ambiguous_and_unknown_names_list_the_kernels() {
    let co = load("workloads/bin/gfx90a/cxx_names.co");
    for q in ["scale", "offset", "demo::offset"] {
        let e = found(&co, q).unwrap_err();
        assert!(matches!(e, KernelLookupError::Ambiguous { .. }), "{q}: {e}");
        let text = e.to_string();
        assert!(text.starts_with(&format!("kernel name '{q}' is ambiguous: ")), "{text}");
        assert!(text.ends_with("; give the mangled name or the full signature"), "{text}");
    }
    let e = found(&co, "scale").unwrap_err().to_string();
    assert!(e.contains("_Z5scalePffj (scale(float*, float, unsigned int)), _Z5scalePddj (scale(double*, double, unsigned int))"), "{e}");
    let e = found(&co, "demo::offset").unwrap_err().to_string();
    assert!(
        e.contains("_ZN4demo6offsetILi1EEEvPij (demo::offset<1>(int*, unsigned int)), _ZN4demo6offsetILi2EEEvPij (demo::offset<2>(int*, unsigned int))"),
        "{e}"
    );
    let e = found(&co, "vadd").unwrap_err().to_string();
    assert!(e.starts_with("no kernel named 'vadd' (kernels: _Z5scalePffj (scale(float*, float, unsigned int)), "), "{e}");
    // A signature that no overload has is not found, not matched loosely.
    assert!(matches!(found(&co, "scale(int*, int, unsigned int)"), Err(KernelLookupError::NotFound { .. })));
}

#[test]
fn extern_c_names_work_as_before() {
    let co = load("workloads/bin/gfx90a/vadd.co");
    assert_eq!(found(&co, "vadd").as_deref(), Ok("vadd"));
    assert_eq!(found(&co, "vadd.kd").as_deref(), Ok("vadd"));
    assert_eq!(co.kernels[0].demangled(), None);
    assert_eq!(found(&co, "vsub").unwrap_err().to_string(), "no kernel named 'vsub' (kernels: vadd)");
}

/// MGPUSim's vectoradd (HIP, gfx942) has a mangled name; its source name finds it.
#[test]
fn external_hip_kernel_by_source_name() {
    let p = root().join("../shared/external-code-objects/sarchlab/mgpusim/amd/benchmarks/amdappsdk/vectoradd/kernels.hsaco");
    let Ok(bytes) = std::fs::read(&p) else {
        println!("SKIPPED: {} not found (the external code objects live outside the repository)", p.display());
        return;
    };
    let co = codeobj::load(&bytes, None).unwrap();
    assert_eq!(found(&co, "vectoradd_float").as_deref(), Ok("_Z15vectoradd_floatPfPKfS1_ii"));
    assert_eq!(found(&co, "vectoradd_float(float*, float const*, float const*, int, int)").as_deref(), Ok("_Z15vectoradd_floatPfPKfS1_ii"));
}
