//! Every class of hostile input the bad-input campaign found (issue 29), generated and fed to
//! the parser: each ends in its one-line located error, quickly, whatever the dialect.
//! (`tests/suite/grade_bad_input.rs` at the workspace root runs the CLI on the same classes and
//! on files that are not regular files.)

use std::path::Path;
use std::time::{Duration, Instant};

use hipscope_grade::litmus;

use crate::common;

use common::pathological;

/// Longest one case may take (a 4 MB file is read in milliseconds).
const CASE_LIMIT: Duration = Duration::from_secs(5);

#[test]
fn every_generated_case_ends_in_its_located_error() {
    let file = Path::new("case.litmus");
    let mut wrong = Vec::new();
    let cases = pathological::all();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    for case in cases {
        let started = Instant::now();
        let result = litmus::parse(file, &case.text);
        let took = started.elapsed();
        match result {
            Ok(_) => wrong.push(format!("{}: parsed", case.name)),
            Err(e) => {
                if !e.message.contains(case.error) {
                    wrong.push(format!("{}: {e} (expected `{}`)", case.name, case.error));
                }
                if let Err(why) = common::one_line_error(&e, file, &case.text) {
                    wrong.push(format!("{}: {why}", case.name));
                }
            }
        }
        if took > CASE_LIMIT {
            wrong.push(format!("{}: took {took:?}", case.name));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The limits are where they say: a condition of exactly 1024 comparisons parses and is
/// judged; one more is refused at the 1025th.
#[test]
fn limits_are_exact() {
    let file = Path::new("t.litmus");
    let frame = "LISA t\n{ x=0; }\n P0 ;\n r[] r0 x ;\n";
    let at_limit = format!("{frame}exists ({})", pathological::chain("0:r0=0", "/\\", 1024));
    let t = litmus::parse(file, &at_limit).unwrap_or_else(|e| panic!("{e}"));
    let v = hipscope_grade::model::check(&t, hipscope_grade::model::Model::Hip).expect("judged");
    assert!(v.reachable(), "r0 reads the initial 0 in some execution");
    let over = format!("{frame}exists ({})", pathological::chain("0:r0=0", "/\\", 1025));
    let e = litmus::parse(file, &over).unwrap_err();
    // Line 5, column of the 1025th comparison: `exists (` is 8 columns, each term and
    // connective 10 more.
    assert_eq!((e.span.line, e.span.column), (5, 9 + 1024 * 10), "{e}");
    let hip = |n: usize| {
        format!(
            "HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {{\n int r0 = x;\n int r1 = {};\n}}\nexists (T0:r1 == 0)",
            pathological::chain("r0", "+", n)
        )
    };
    let t = litmus::parse(file, &hip(257)).unwrap_or_else(|e| panic!("{e}"));
    let v = hipscope_grade::model::check(&t, hipscope_grade::model::Model::Hip).expect("judged");
    assert!(v.reachable(), "r1 = 257 * 0");
    assert!(litmus::parse(file, &hip(258)).unwrap_err().message.contains("more than 256 operators"));
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let text = "\u{feff}LISA t\n{ x=0; }\n P0 ;\n w[] x 1 ;\nexists (x=1)\n";
    let t = litmus::parse(Path::new("bom.litmus"), text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.name, "t");
    // Columns on the first line count from after the mark, as an editor shows them.
    let e = litmus::parse(Path::new("bom.litmus"), "\u{feff}LISA").unwrap_err();
    assert_eq!(e.to_string(), "bom.litmus:1:5: missing the test name after the dialect word");
}

#[test]
fn files_that_are_not_regular_are_refused_without_being_opened() {
    let dir = std::env::temp_dir().join(format!("hipscope-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let e = litmus::read_source(&dir).unwrap_err();
    assert!(e.to_string().ends_with("not a regular file (a directory); a litmus test is a text file"), "{e}");
    let big = dir.join("big.litmus");
    std::fs::write(&big, vec![b' '; (litmus::limits::MAX_FILE_BYTES + 1) as usize]).expect("write");
    assert!(litmus::read_source(&big).unwrap_err().to_string().contains("larger than 1024 KiB"));
    let bom = dir.join("bom.litmus");
    std::fs::write(&bom, "\u{feff}LISA t\n").expect("write");
    assert_eq!(litmus::read_source(&bom).expect("read"), "LISA t\n");
    #[cfg(unix)]
    {
        // A FIFO with no writer: opening it would block this test for ever.
        let fifo = dir.join("fifo.litmus");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = litmus::read_source(&fifo).unwrap_err();
            assert!(e.to_string().contains("not a regular file (a FIFO)"), "{e}");
        } else {
            println!("SKIPPED (FIFO part): mkfifo is not available");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
