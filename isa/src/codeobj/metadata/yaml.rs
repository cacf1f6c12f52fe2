//! `NT_AMD_HSA_METADATA` descriptor (code object v2: a NUL-terminated YAML document, AMDGPUUsage
//! "Code Object V2 Metadata") → [`MValue`].
//!
//! Why a crate: the text is LLVM YAML I/O output (block maps and sequences, flow sequences such
//! as `[ 1, 0 ]`, quoted scalars like `'float*'`), and quoting/escaping rules are easy to get
//! subtly wrong by hand. `yaml-rust2` is pure Rust, maintained, MIT/Apache-2.0, has no required
//! dependencies with `default-features = false`, and exposes an event parser. We use the events
//! (not its document loader) so we control nesting depth: its tree would be built and dropped
//! recursively, which hostile input could use to overflow the stack.

use super::value::{MValue, MAX_DEPTH};
use crate::codeobj::LoadError;
use yaml_rust2::parser::{Event, Parser};

/// A container being filled: a map (with a pending key) or a sequence.
enum Open {
    Map(Vec<(String, MValue)>, Option<String>),
    Seq(Vec<MValue>),
}

fn err(problem: impl Into<String>) -> LoadError {
    LoadError::metadata("NT_AMD_HSA_METADATA", problem)
}

/// Parse the first YAML document of the note.
pub fn decode(desc: &[u8]) -> Result<MValue, LoadError> {
    let text = desc.split(|&b| b == 0).next().unwrap_or_default();
    let text = std::str::from_utf8(text).map_err(|e| err(format!("not UTF-8: {e}")))?;
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Open> = Vec::new();
    loop {
        let (event, mark) = parser.next_token().map_err(|e| err(format!("bad YAML: {e}")))?;
        let value = match event {
            Event::StreamEnd | Event::DocumentEnd => return Err(err("YAML document has no top-level map")),
            Event::MappingStart(..) | Event::SequenceStart(..) if stack.len() >= MAX_DEPTH => {
                return Err(err(format!("YAML nested deeper than {MAX_DEPTH} levels at line {}", mark.line())));
            }
            Event::MappingStart(..) => {
                stack.push(Open::Map(Vec::new(), None));
                continue;
            }
            Event::SequenceStart(..) => {
                stack.push(Open::Seq(Vec::new()));
                continue;
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(Open::Map(entries, _)) => MValue::Map(entries),
                Some(Open::Seq(items)) => MValue::Seq(items),
                None => return Err(err("unbalanced YAML events")),
            },
            Event::Scalar(s, ..) => MValue::Scalar(s),
            Event::Alias(_) => MValue::Other,
            _ => continue,
        };
        match stack.last_mut() {
            None => return Ok(value),
            Some(open) => add(open, value)?,
        }
    }
}

/// Put a finished value into its parent: as a key, as a key's value, or as a list item.
fn add(open: &mut Open, value: MValue) -> Result<(), LoadError> {
    match open {
        Open::Seq(items) => items.push(value),
        Open::Map(entries, pending) => match pending.take() {
            Some(key) => entries.push((key, value)),
            None => match value {
                MValue::Scalar(key) => *pending = Some(key),
                _ => return Err(err("YAML map key is not a scalar")),
            },
        },
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_llvm_yaml_io_style() {
        let text = "---\nVersion:         [ 1, 0 ]\nKernels:         \n  - Name:            FIR\n    \
                    SymbolName:      'FIR@kd'\n    Args:            \n      - Size:            8\n...\n\0";
        let v = decode(text.as_bytes()).unwrap();
        let MValue::Map(top) = v else { panic!("not a map") };
        assert_eq!(top[0], ("Version".into(), MValue::Seq(vec![MValue::Scalar("1".into()), MValue::Scalar("0".into())])));
        let MValue::Seq(kernels) = &top[1].1 else { panic!("no kernels") };
        let MValue::Map(k) = &kernels[0] else { panic!("kernel not a map") };
        assert_eq!(k[1], ("SymbolName".into(), MValue::Scalar("FIR@kd".into())));
    }

    #[test]
    fn rejects_deep_nesting_and_junk() {
        let deep = format!("a: {}{}", "[".repeat(200), "]".repeat(200));
        assert!(decode(deep.as_bytes()).is_err());
        let deep_block: String = (0..100).map(|i| format!("{}- \n", " ".repeat(i))).collect();
        assert!(decode(deep_block.as_bytes()).is_err());
        assert!(decode(b"a: [").is_err());
        assert!(decode(b"").is_err());
        assert!(decode(&[0xff, 0xfe]).is_err());
    }
}
