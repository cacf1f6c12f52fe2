//! One litmus file from arbitrary bytes, through every layer a grade runs: the `litmus`
//! cargo-fuzz target and `grade/tests/suite/litmus_fuzz.rs` both call [`fuzz_one`], so that whatever a
//! file says, in any dialect, grading it ends in a verdict or a one-line located error —
//! never a panic, an abort, a stack overflow or a hang.
//!
//! The input is the file's bytes. A file that parses is judged under the three models
//! within a small budget of candidate executions ([`MAX_CANDIDATES`]); a small one
//! ([`MAX_STATEMENTS_FOR_REPORT`]) also gets the whole report under one of them, chosen by
//! the input's length (races explained, witness, fix search); every parsed file is lowered
//! for one build of each ISA family, and compiled into the hardware layer's kernel for one
//! of them, chosen by the input's length too (not run: the `launch` target covers the
//! engine; compiling takes milliseconds, most of an input's time).

use std::path::Path;

use crate::litmus::{self, for_each_stmt, Litmus};
use crate::model::{self, Model};
use crate::{hardware, report};
use hipscope_mm::lower;

/// Candidate executions a fuzz input may have under each model: litmus tests have
/// hundreds; more only makes an input slow, not more interesting.
pub const MAX_CANDIDATES: usize = 5_000;

/// Statements (in all threads) up to which the whole report is made: the fix search
/// re-judges the test once per candidate edit and pair of edits.
pub const MAX_STATEMENTS_FOR_REPORT: usize = 24;

/// The builds the lowering and the kernel generator are exercised on: one per ISA family
/// the hardware layer distinguishes (GCN 3, CDNA 3, RDNA 3 in wave32).
pub const BUILDS: [&str; 3] = ["gfx803", "gfx942", "gfx1100-w32-wgp"];

/// How one input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Not UTF-8 text.
    NotText,
    /// The parser (or the checks after it) refused it with a located error.
    Rejected,
    /// Parsed, but too large to judge under some model within the budget.
    TooLarge,
    /// Parsed and judged under every model.
    Judged,
}

/// Runs one input (see the module documentation). Panics only on a broken promise: an
/// error that is not one located line.
pub fn fuzz_one(data: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(data) else { return Outcome::NotText };
    let file = Path::new("fuzz.litmus");
    let test = match litmus::parse(file, text) {
        Ok(test) => test,
        Err(e) => {
            check_error(&e.to_string(), e.span.line, text);
            return Outcome::Rejected;
        }
    };
    lower_everywhere(&test, data.len());
    let lines: Vec<&str> = text.lines().collect();
    let small = statements(&test) <= MAX_STATEMENTS_FOR_REPORT;
    let models = [Model::Hip, Model::Hsa, Model::Opencl];
    let reported = models[data.len() % models.len()];
    let mut outcome = Outcome::Judged;
    for m in models {
        if model::check_within(&test, m, MAX_CANDIDATES).is_err() {
            outcome = Outcome::TooLarge;
            continue;
        }
        if small && m == reported {
            if let Ok((r, _)) = report::grade("fuzz.litmus", &test, m, &lines) {
                let _ = report::text(&r);
                let _ = serde_json::to_string(&r);
            }
        }
    }
    outcome
}

/// A parse error is one line `file:line:column: message` whose line is in the text (0 only
/// for errors about the whole file).
fn check_error(shown: &str, line: u32, text: &str) {
    assert!(!shown.contains('\n'), "an error of several lines: {shown:?}");
    let lines = text.split('\n').count() as u32;
    assert!(line <= lines, "an error at line {line} of a {lines}-line text: {shown}");
}

/// Statements of every thread, nested ones included.
fn statements(test: &Litmus) -> usize {
    let mut n = 0;
    for t in &test.threads {
        for_each_stmt(&t.body, &mut |_, _| n += 1);
    }
    n
}

/// The ISA listing for each of [`BUILDS`], and the hardware layer's kernel for the one
/// `pick` selects; a test the hardware layer cannot run is refused with a reason, which is
/// fine.
fn lower_everywhere(test: &Litmus, pick: usize) {
    for (i, name) in BUILDS.iter().enumerate() {
        let Some((_, target)) = lower::CONFIGS.iter().find(|(n, _)| n == name) else { continue };
        let _ = report::emitted(test, target);
        if i == pick % BUILDS.len() {
            let _ = hardware::compile(test, target);
        }
    }
}
