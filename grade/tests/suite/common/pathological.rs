//! Generated hostile litmus files, one per class the bad-input campaign found (issue 29): flat
//! chains of 300 000 terms in each dialect's condition and in thread bodies, a thread of
//! 20 000 loads, tables of 100 000 rows, deep nesting, thousands of threads, undeclared names,
//! empty threads and impossible placements. Each comes with a fragment of the error it must
//! end in.

/// One generated file and what parsing it must say.
pub struct Case {
    pub name: String,
    pub text: String,
    /// A fragment of the one-line error.
    pub error: &'static str,
}

fn case(name: impl Into<String>, text: String, error: &'static str) -> Case {
    Case { name: name.into(), text, error }
}

/// Terms in a flat chain, the campaign's size.
pub const CHAIN: usize = 300_000;
/// Loads in one thread.
pub const LOADS: usize = 20_000;
/// Rows of a table.
pub const ROWS: usize = 100_000;

/// `term op term op …`, `n` terms.
pub fn chain(term: &str, op: &str, n: usize) -> String {
    let mut s = String::with_capacity(n * (term.len() + op.len() + 2));
    for i in 0..n {
        if i > 0 {
            s.push(' ');
            s.push_str(op);
            s.push(' ');
        }
        s.push_str(term);
    }
    s
}

/// A minimal test of each dialect around a condition: (dialect, header and threads,
/// a comparison on a register of thread 0).
pub fn condition_frames() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("lisa", "LISA t\n{ x=0; }\n P0 ;\n r[] r0 x ;\n", "0:r0=0"),
        ("ptx", "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n", "P0:r0 == 0"),
        ("gpu_ptx", "GPU_PTX t\n{ 0:.reg .b64 a = x; }\n P0 ;\n ld.s32 r0,[a] ;\n", "0:r0=0"),
        ("vulkan", "Vulkan t\n{ x=0; }\nP0@sg 0, wg 0, qf 0 ;\nld.sc0 r0, x ;\n", "P0:r0 == 0"),
        ("opencl", "OPENCL t\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x) {\n int r0 = *x;\n}\n", "0:r0=0"),
        ("hip", "HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {\n int r0 = x;\n}\n", "T0:r0 == 0"),
    ]
}

/// Flat 300 000-term conditions in every dialect, with each connective.
pub fn flat_conditions() -> Vec<Case> {
    let mut out = Vec::new();
    for (dialect, frame, cmp) in condition_frames() {
        for op in ["/\\", "\\/", "&&", "||"] {
            let text = format!("{frame}exists ({})\n", chain(cmp, op, CHAIN));
            out.push(case(format!("{dialect} condition {op}"), text, "more than 1024 comparisons"));
        }
    }
    out
}

/// Flat 300 000-term expressions in the C dialects' thread bodies, which the hardware layer
/// lowers recursively: a stored value, a local's value and an `if` condition.
pub fn flat_expressions() -> Vec<Case> {
    let hip = |body: &str| format!("HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {{\n int r0 = x;\n{body}\n}}\nexists (T0:r0 == 0)\n");
    let opencl = |body: &str| format!("OPENCL t\n{{ [x]=0; }}\nP0@wg 0, dev 0 (global int* x) {{\n int r0 = *x;\n{body}\n}}\nexists (0:r0=0)\n");
    let sum = chain("r0", "+", CHAIN);
    let all = chain("r0 == 0", "&&", CHAIN);
    vec![
        case("hip stored sum", hip(&format!(" x = {sum};")), "more than 256 operators"),
        case("hip local sum", hip(&format!(" int r1 = {sum};")), "more than 256 operators"),
        case("hip if &&", hip(&format!(" if ({all}) {{ x = 1; }}")), "more than 256 operators"),
        case("opencl stored sum", opencl(&format!(" *x = {sum};")), "more than 256 operators"),
        case("opencl local sum", opencl(&format!(" int r1 = {sum};")), "more than 256 operators"),
        case("opencl if &&", opencl(&format!(" if ({all}) {{ *x = 1; }}")), "more than 256 operators"),
        // Parentheses around a dereferenced pointer recurse in the parser (found by the
        // litmus fuzzer: 3 000 of them overflowed a 2 MiB stack).
        case("opencl parenthesised pointer", opencl(&format!(" *{}x{} = 1;", "(".repeat(3000), ")".repeat(3000))), "levels deep"),
    ]
}

/// One thread of 20 000 loads, in every dialect.
pub fn long_threads() -> Vec<Case> {
    let n = LOADS;
    vec![
        case(
            "hip loads",
            format!("HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {{\n int r0 = 0;\n{}}}\nexists (T0:r0 == 1)\n", " r0 = x;\n".repeat(n)),
            "more than 1000 statements",
        ),
        case(
            "opencl loads",
            format!("OPENCL t\n{{ [x]=0; }}\nP0@wg 0, dev 0 (global int* x) {{\n int r0 = 0;\n{}}}\nexists (0:r0=1)\n", " r0 = *x;\n".repeat(n)),
            "more than 1000 statements",
        ),
        case("lisa loads", format!("LISA t\n{{ x=0; }}\n P0 ;\n{}exists (0:r0=1)\n", " r[] r0 x ;\n".repeat(n)), "more than 1000 rows"),
        case("ptx loads", format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n{}exists (P0:r0 == 1)\n", " ld.weak r0, x ;\n".repeat(n)), "more than 1000 rows"),
        case(
            "vulkan loads",
            format!("Vulkan t\n{{ x=0; }}\nP0@sg 0, wg 0, qf 0 ;\n{}exists (P0:r0 == 1)\n", " ld.sc0 r0, x ;\n".repeat(n)),
            "more than 1000 rows",
        ),
    ]
}

/// Two-thread tables of 100 000 rows.
pub fn long_tables() -> Vec<Case> {
    let n = ROWS;
    vec![
        case("lisa rows", format!("LISA t\n{{ x=0; }}\n P0 | P1 ;\n{}exists (0:r0=1)\n", " r[] r0 x | w[] x 1 ;\n".repeat(n)), "more than 1000 rows"),
        case(
            "ptx rows",
            format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n{}exists (P0:r0 == 1)\n", " ld.weak r0, x | st.weak x, 1 ;\n".repeat(n)),
            "more than 1000 rows",
        ),
        case(
            "vulkan rows",
            format!("Vulkan t\n{{ x=0; }}\nP0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n{}exists (P0:r0 == 1)\n", " ld.sc0 r0, x | st.sc0 x, 1 ;\n".repeat(n)),
            "more than 1000 rows",
        ),
        case(
            "gpu_ptx rows",
            format!("GPU_PTX t\n{{ 0:.reg .b64 a = x; 1:.reg .b64 a = x; }}\n P0 | P1 ;\n{}exists (0:r0=1)\n", " ld.s32 r0,[a] | st.s32 [a],1 ;\n".repeat(n)),
            "more than 1000 rows",
        ),
    ]
}

/// Deep nesting: parentheses and negations in conditions, blocks and `if`s in bodies,
/// forward branches in tables, and thousands of threads.
pub fn deep_and_wide() -> Vec<Case> {
    let lisa = "LISA t\n{ x=0; }\n P0 ;\n r[] r0 x ;\n";
    let nested = |jumps: usize| {
        let mut s = String::new();
        for i in 0..jumps {
            s.push_str(&format!(" b r0 L{i} ;\n"));
        }
        for i in (0..jumps).rev() {
            s.push_str(&format!(" L{i}: ;\n"));
        }
        format!("LISA t\n{{ x=0; }}\n P0 ;\n r[] r0 x ;\n{s}exists (0:r0=1)\n")
    };
    let hip_ifs = format!(
        "HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {{\n int r0 = x;\n{} x = 1; {}\n}}\nexists (T0:r0 == 0)\n",
        "if (r0 == 0) { ".repeat(100_000),
        "}".repeat(100_000)
    );
    let opencl_ifs = format!(
        "OPENCL t\n{{ [x]=0; }}\nP0 (global int* x) {{\n int r0 = *x;\n{} *x = 1; {}\n}}\nexists (x=0)\n",
        "if (r0 == 0) { ".repeat(100_000),
        "}".repeat(100_000)
    );
    let threads = 5000;
    let heads: Vec<String> = (0..threads).map(|i| format!("P{i}")).collect();
    let cells = vec!["w[] x 1"; threads];
    let hip_threads: String = (0..threads).map(|i| format!("thread T{i} @ block {i}, thread 0 {{ x = 1; }}\n")).collect();
    vec![
        case("lisa parentheses", format!("{lisa}exists {}0:r0=0{}\n", "(".repeat(CHAIN), ")".repeat(CHAIN)), "nested more than 200 levels"),
        case("lisa negations", format!("{lisa}exists {}0:r0=0\n", "~".repeat(CHAIN)), "nested more than 200 levels"),
        case("lisa 50 000 nested branches", nested(50_000), "more than 1000 rows"),
        case("lisa 400 nested branches", nested(400), "branches nest more than 128 levels"),
        case("hip nested ifs", hip_ifs, "nested more than 64 levels"),
        case("opencl nested ifs", opencl_ifs, "nested more than 200 levels"),
        case("lisa threads", format!("LISA t\n{{ x=0; }}\n{} ;\n{} ;\nexists (x=1)\n", heads.join(" | "), cells.join(" | ")), "more than 128 columns"),
        case("hip threads", format!("HIP t\n__device__ int x = 0;\n{hip_threads}exists (x == 1)\n"), "more than 128 threads"),
    ]
}

/// Many names, which a quadratic lookup would take seconds over: 64 000 locations (LISA,
/// OpenCL), 80 000 labels in one cell, 60 000 address registers.
pub fn many_names() -> Vec<Case> {
    let threads = 128;
    let heads: Vec<String> = (0..threads).map(|i| format!("P{i}")).collect();
    let rows: String = (0..500).map(|r| (0..threads).map(|t| format!("w[] x{r}_{t} 1")).collect::<Vec<_>>().join(" | ") + " ;\n").collect();
    let labels: String = (0..80_000).map(|i| format!("L{i}: ")).collect();
    let inits: String = (0..60_000).map(|i| format!("[x{i}]=0; ")).collect();
    let addresses: String = (0..60_000).map(|i| format!("0:r{i}=x; ")).collect();
    vec![
        case("lisa 64 000 locations", format!("LISA t\n{{ }}\n{} ;\n{rows}exists (x0_0=1)\n", heads.join(" | ")), "more than 128 locations"),
        case("lisa 80 000 labels", format!("LISA t\n{{ x=0; }}\n P0 ;\n {labels}w[] x 1 ;\nexists (x=1)\n"), "more than 1000 labels"),
        case("lisa 60 000 address registers", format!("LISA t\n{{ {addresses}}}\n P0 ;\n w[] x 1 ;\nexists (x=1)\n"), "more than 256 address registers"),
        case("opencl 60 000 locations", format!("OPENCL t\n{{ {inits}}}\nP0 (global int* x0) {{ *x0 = 1; }}\nexists (x0=1)\n"), "more than 128 locations"),
    ]
}

/// Names that are not declared, per dialect; an empty thread; placements no GPU has.
pub fn undeclared_and_impossible() -> Vec<Case> {
    let hip = |place: &str| format!("HIP t\n__device__ int x = 0;\nthread T0 @ {place} {{\n x = 1;\n}}\nexists (x == 1)\n");
    vec![
        case("lisa undeclared location", "LISA t\n{ x=0; }\n P0 ;\n w[] y 1 ;\nexists (x=0)\n".into(), "`y` is not a declared location"),
        case("lisa undeclared address", "LISA t\n{ x=0; 0:r2=z; }\n P0 ;\n w[] r2 1 ;\nexists (x=0)\n".into(), "`z` is not a declared location"),
        case("lisa undeclared region", "LISA t\n{ }\n P0 ;\n w[] x 1 ;\nregions: z:group\nexists (x=0)\n".into(), "`z` is not a location of the test"),
        case("lisa undeclared register", "LISA t\n{ }\n P0 ;\n w[] x 1 ;\nexists (0:r9=0)\n".into(), "P0 has no register `r9`"),
        // Dartagnan's PTX and Vulkan formats create a location an instruction names (its
        // catalogue relies on it); a name only the condition uses is still a typo.
        case(
            "ptx undeclared location",
            "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (y=0)\n".into(),
            "the condition names `y`, which is not a location",
        ),
        case(
            "gpu_ptx undeclared location",
            "GPU_PTX t\n{ x=0; 0:.reg .b64 a = z; }\n P0 ;\n st.s32 [a],1 ;\nexists (x=0)\n".into(),
            "`z` is not a declared location",
        ),
        case(
            "vulkan undeclared location",
            "Vulkan t\n{ x=0; }\nP0@sg 0, wg 0, qf 0 ;\nst.sc0 x, 1 ;\nexists (y=0)\n".into(),
            "the condition names `y`, which is not a location",
        ),
        case(
            "opencl undeclared parameter",
            "OPENCL t\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x, global int* z) {\n *z = 1;\n}\nexists (x=0)\n".into(),
            "`z` is not a declared location",
        ),
        case(
            "opencl undeclared register",
            "OPENCL t\n{ [x]=0; }\nP0 (global int* x) {\n *x = 1;\n}\nexists (0:r9=0)\n".into(),
            "P0 has no local variable `r9`",
        ),
        case(
            "hip undeclared location",
            "HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {\n y = 1;\n}\nexists (x == 1)\n".into(),
            "`y` is not declared",
        ),
        case("lisa empty thread", "LISA t\n{ x=0; }\n P0 | P1 ;\n w[] x 1 | ;\nexists (x=1)\n".into(), "thread P1 has no instructions"),
        case(
            "hip empty thread",
            "HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 { x = 1; }\nthread T1 @ block 1, thread 0 { }\nexists (x == 1)\n".into(),
            "thread T1 has no instructions",
        ),
        case(
            "opencl empty thread",
            "OPENCL t\n{ [x]=0; }\nP0 (global int* x) { *x = 1; }\nP1 (global int* x) { }\nexists (x=1)\n".into(),
            "thread P1 has no instructions",
        ),
        case("hip thread 2048", hip("block 0, thread 2048"), "thread 2048 is outside every block"),
        case("hip wave mismatch", hip("block 0, thread 0, wave 1"), "thread 0 cannot be in wave 1"),
    ]
}

/// Every generated case.
pub fn all() -> Vec<Case> {
    let mut out = flat_conditions();
    out.extend(flat_expressions());
    out.extend(long_threads());
    out.extend(long_tables());
    out.extend(deep_and_wide());
    out.extend(many_names());
    out.extend(undeclared_and_impossible());
    out
}

/// Files at the limits, which must parse and go through every later layer (the recursion
/// the limits leave must fit a 2 MiB stack): a condition of 1024 comparisons and one nested
/// 200 deep, expressions of 256 operators (255 in the `if`: 128 comparisons and 127 `&&`) in
/// parentheses nested 60 deep, `if`s nested to the C dialects' limits, 128 nested forward
/// branches, 1000 statements.
pub fn at_the_limits() -> Vec<(String, String)> {
    let lisa = "LISA t\n{ x=0; }\n P0 | P1 ;\n r[] r0 x | w[] x 1 ;\n";
    let hip = |body: &str, cond: &str| {
        format!("HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {{\n int r0 = x;\n{body}\n}}\nthread T1 @ block 1, thread 0 {{\n x = 1;\n}}\nexists ({cond})\n")
    };
    let opencl = |body: &str| {
        format!("OPENCL t\n{{ [x]=0; }}\nP0 (global int* x) {{\n int r0 = *x;\n{body}\n}}\nP1 (global int* x) {{\n *x = 1;\n}}\nexists (0:r0=1)\n")
    };
    let sum = format!("{}{}{}", "(".repeat(60), chain("r0", "+", 257), ")".repeat(60));
    let jumps = 128;
    let mut branches = String::new();
    for i in 0..jumps {
        branches.push_str(&format!(" b r0 L{i} | ;\n"));
    }
    branches.push_str(" w[] x 2 | ;\n");
    for i in (0..jumps).rev() {
        branches.push_str(&format!(" L{i}: | ;\n"));
    }
    vec![
        ("1024 comparisons".into(), format!("{lisa}exists ({})\n", chain("0:r0=1", "/\\", 1024))),
        ("1024 alternatives".into(), format!("{lisa}exists ({})\n", chain("0:r0=1", "\\/", 1024))),
        ("200 parentheses".into(), format!("{lisa}exists {}0:r0=1{}\n", "(".repeat(200), ")".repeat(200))),
        ("199 negations".into(), format!("{lisa}exists {}0:r0=1\n", "~".repeat(199))),
        ("256 operators".into(), hip(&format!(" x = {sum};\n int r1 = {sum};\n if ({}) {{ x = 3; }}", chain("r0 == 0", "&&", 128)), "T0:r0 == 1")),
        // An `if` and its block are two of the HIP dialect's 64 levels.
        ("31 nested ifs".into(), hip(&format!("{} x = 2; {}", "if (r0 == 0) { ".repeat(31), "}".repeat(31)), "T0:r0 == 1")),
        ("99 nested ifs".into(), opencl(&format!("{} *x = 2; {}", "if (r0 == 0) { ".repeat(99), "}".repeat(99)))),
        ("128 nested branches".into(), format!("LISA t\n{{ x=0; }}\n P0 | P1 ;\n r[] r0 x | w[] x 1 ;\n{branches}exists (0:r0=1)\n")),
        ("1000 statements".into(), hip(&" r0 = r0 + 1;\n".repeat(999), "T0:r0 == 1")),
    ]
}
