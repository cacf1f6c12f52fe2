//! The integer types of the HIP dialect (`int`, `unsigned`, `long`, `unsigned long long`,
//! `int32_t`, `uint64_t`, `size_t`, …) and the literals written for them.
//!
//! Widths are AMDGPU's (AMDGPUUsage, "Memory Spaces" / clang's target info for amdgcn: LP64,
//! `int` 32 bits, `long` and `long long` 64 bits), which are also the host's on Linux.

use super::expr;
use crate::litmus::error::{ParseResult, SyntaxError};
use crate::litmus::text::Cursor;
use hipscope_mm::{Value, ValueType};

/// Words that combine into a type (`unsigned long int`).
const SPECIFIERS: [&str; 4] = ["int", "unsigned", "signed", "long"];

/// `<cstdint>` and `<cstddef>` names, each one type.
const TYPEDEFS: [(&str, ValueType); 8] = [
    ("int32_t", ValueType::INT),
    ("uint32_t", ValueType::UINT),
    ("int64_t", ValueType::LONG),
    ("uint64_t", ValueType::ULONG),
    ("size_t", ValueType::ULONG),
    ("ptrdiff_t", ValueType::LONG),
    ("intptr_t", ValueType::LONG),
    ("uintptr_t", ValueType::ULONG),
];

/// Is `word` the first word of an integer type? `Err` for scalar types the grader does not
/// model (every location is a 32- or 64-bit integer).
pub(super) fn int_type_word(word: &str) -> Option<Result<(), String>> {
    if SPECIFIERS.contains(&word) || TYPEDEFS.iter().any(|(n, _)| *n == word) {
        return Some(Ok(()));
    }
    match word {
        "short" | "char" | "float" | "double" | "half" | "__half" | "int16_t" | "uint16_t" | "int8_t" | "uint8_t" => Some(Err(format!(
            "`{word}` is not supported: locations and locals are 32- or 64-bit integers (`int`, `unsigned`, `long`, `unsigned long long`, `uint64_t`, …)"
        ))),
        _ => None,
    }
}

/// Reads an integer type: `int`, `unsigned`, `unsigned int`, `long`, `long long`, `unsigned
/// long long int`, `int32_t`, `uint64_t`, `size_t`, ….
pub(super) fn int_type(cur: &mut Cursor<'_>) -> ParseResult<ValueType> {
    cur.skip_blank();
    let span = cur.span();
    let mut probe = cur.clone();
    let word = probe.ident().unwrap_or("");
    match int_type_word(word) {
        Some(Ok(())) => {}
        Some(Err(m)) => return Err(SyntaxError::new(span, m)),
        None => return Err(SyntaxError::new(span, format!("expected an integer type (`int`, `unsigned`, `long`, `uint64_t`, …), found `{word}`"))),
    }
    if let Some((_, ty)) = TYPEDEFS.iter().find(|(n, _)| *n == word) {
        *cur = probe;
        return Ok(*ty);
    }
    specifiers(cur)
}

/// A run of `int` / `unsigned` / `signed` / `long` words, combined as C combines them.
fn specifiers(cur: &mut Cursor<'_>) -> ParseResult<ValueType> {
    let (mut longs, mut sign, mut int) = (0u8, None::<bool>, false);
    loop {
        cur.skip_blank();
        let at = cur.span();
        let mut probe = cur.clone();
        let Some(word) = probe.ident().filter(|w| SPECIFIERS.contains(w) || matches!(*w, "short" | "char")) else { break };
        let repeated = match word {
            "long" => {
                longs += 1;
                longs > 2
            }
            "int" => std::mem::replace(&mut int, true),
            "unsigned" | "signed" => sign.replace(word == "signed").is_some(),
            _ => return Err(SyntaxError::new(at, format!("`{word}` is not supported: locations and locals are 32- or 64-bit integers"))),
        };
        if repeated {
            return Err(SyntaxError::new(at, format!("`{word}` cannot appear here: the type already says it")));
        }
        *cur = probe;
    }
    let bits = if longs > 0 { 64 } else { 32 };
    Ok(ValueType { bits, signed: sign.unwrap_or(true) })
}

/// An initial value after `=` or inside `{…}`: an integer literal (with an optional sign and
/// `u`/`l` suffixes) that `ty` holds, converted to it (`unsigned x = -1` is `UINT_MAX`); a
/// value clang-19 would change with a warning (`int x = 2147483648`) is an error here.
pub(super) fn initial(cur: &mut Cursor<'_>, ty: ValueType, name: &str) -> ParseResult<Value> {
    cur.skip_blank();
    let at = cur.span();
    let Some(v) = expr::literal(cur) else {
        return Err(cur.error(format!("expected an integer initial value, found {}", cur.describe_next())));
    };
    let v = v?;
    ty.literal(v).ok_or_else(|| SyntaxError::new(at, format!("{v} does not fit `{name}`, of type {}", ty.describe())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> ParseResult<ValueType> {
        int_type(&mut Cursor::new(text))
    }

    #[test]
    fn c_type_names() {
        for (text, want) in [
            ("int x", ValueType::INT),
            ("unsigned x", ValueType::UINT),
            ("unsigned int x", ValueType::UINT),
            ("signed x", ValueType::INT),
            ("long x", ValueType::LONG),
            ("long long int x", ValueType::LONG),
            ("unsigned long long x", ValueType::ULONG),
            ("long unsigned x", ValueType::ULONG),
            ("uint32_t x", ValueType::UINT),
            ("int64_t x", ValueType::LONG),
            ("size_t x", ValueType::ULONG),
        ] {
            assert_eq!(ty(text), Ok(want), "{text}");
        }
        assert!(ty("long long long x").unwrap_err().message.contains("already"));
        assert!(ty("unsigned signed x").is_err());
        assert!(ty("short x").unwrap_err().message.contains("not supported"));
        assert!(ty("float x").unwrap_err().message.contains("not supported"));
    }

    #[test]
    fn initial_values_fit_or_are_refused() {
        let init = |text: &str, t: ValueType| initial(&mut Cursor::new(text), t, "x");
        assert_eq!(init("-1", ValueType::UINT), Ok(4294967295));
        assert_eq!(init("0xffffffffu", ValueType::UINT), Ok(4294967295));
        assert_eq!(init("-2147483648", ValueType::INT), Ok(-2147483648));
        assert_eq!(init("18446744073709551615ull", ValueType::ULONG), Ok(u64::MAX.into()));
        let e = init("2147483648", ValueType::INT).unwrap_err();
        assert!(e.message.contains("does not fit `x`, of type `int`"), "{}", e.message);
        assert!(init("4294967296", ValueType::UINT).is_err());
        assert!(init("-9223372036854775809", ValueType::LONG).is_err());
    }
}
