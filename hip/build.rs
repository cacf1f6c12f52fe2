//! Link the shared library the way HIP executables expect it: SONAME `libamdhip64.so.5` and
//! every exported HIP symbol under the version `hip_4.2` (see `exports.map`).

fn main() {
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("exports.map");
    println!("cargo:rerun-if-changed={}", map.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libamdhip64.so.5");
}
