//! `hipscope run --set NAME=VALUE`: one spec for every size. `workloads/vadd.ron` declares
//! `params: {"n": 10000}` and sizes everything from n (a and b: 4n bytes, c: 4(n + 240) bytes,
//! grid n + 100 in 256-item groups).

use std::process::Output;

use crate::cli;
use cli::{code, hipscope, stderr};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn set_resizes_the_vadd_workload() {
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--set", "n=65536"]);
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{out}{}", stderr(&o));
    assert!(out.contains("params: n=65536"), "{out}");
    // Grid 65636 = 256 full groups of 4 waves + one group of 100 items (2 waves): 1026 waves.
    assert!(out.contains("dispatch 0: vadd grid (65636,1,1) block (256,1,1): 257 groups, 1026 waves,"), "{out}");
    // c holds 65536 + 240 floats, all checked against the CPU reference.
    assert!(out.contains("check c: ok (65776 f32 values equal reference vadd)"), "{out}");
    // A small size works as well: 1 element, grid 101 (one partial group of 2 waves).
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--set", "n=1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("grid (101,1,1) block (256,1,1): 1 groups, 2 waves,"), "{}", stdout(&o));
}

#[test]
fn bad_set_arguments_exit_2() {
    let cases = [
        (vec!["--set", "m=5"], "workloads/vadd.ron: --set m: the spec has no parameter `m` (params: n)"),
        (vec!["--set", "n"], "--set n: expected NAME=VALUE"),
        (vec!["--set", "n=ten"], "--set n=ten: `ten`: unknown parameter `ten`"),
        (vec!["--set", "n=1", "--set", "n=2"], "--set n: given more than once"),
        // n = -1: a's 4n bytes cannot be negative.
        (vec!["--set", "n=-1"], "buffers.a.bytes: `4*n` = -4 does not fit in u64"),
        // n = 2^31: the buffers' 12n + 960 bytes exceed the 4 GiB limit.
        (vec!["--set", "n=2147483648"], "buffers: 25769804736 bytes in all; at most 4294967296"),
        // n = 2^32: the grid n + 100 does not fit the u32 of a dimension.
        (vec!["--set", "n=4294967296"], "dispatches[0].grid[0]: `n + 100` = 4294967396 does not fit in u32"),
    ];
    for (flags, want) in cases {
        let mut args = vec!["run", "workloads/vadd.ron", "--gpu", "mi210"];
        args.extend(&flags);
        let o = hipscope(&args);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{flags:?}: {err}");
        assert!(err.contains(want) && err.lines().count() == 1, "{flags:?}: want {want}, got {err}");
    }
}
