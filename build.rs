//! The `hipscope` executable is linked at a fixed address (not position-independent): then the
//! dynamic loader has no relative relocations to apply to it when it starts (about 14 000, a
//! quarter of a millisecond and 70 written pages on every `hipscope` run, `exec`'s included).
//! The runtime library (`hip/`) is a shared object and stays position-independent.

fn main() {
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
