//! `Range` axes: `start, start + step, …` up to and including `end`, counted arithmetically
//! before any value is made, so a step of `1e-300` is an error naming the count it would give
//! rather than an allocation (or, as `usize` arithmetic once wrapped, an axis of no values).
//!
//! Integers (and byte sizes with a unit) are stepped exactly in `i128`; as soon as one of the
//! three is written as a float the range is stepped in `f64`, with the count rounded to the
//! nearest whole number when it is within `FLOAT_SLACK` of it (`0.1 to 0.3 step 0.1` is three
//! values although `(0.3 - 0.1) / 0.1` is 1.999…).

use crate::plan::Value;

/// How far below a whole number a float range's step count may fall and still count as it.
const FLOAT_SLACK: f64 = 1e-9;

/// A range's start, step and count, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Steps {
    Int { start: i128, step: i128, count: u64 },
    Float { start: f64, step: f64, count: u64 },
}

/// A plan value as an exact integer, if it is one (`Int`, or a byte size with a unit).
fn integer(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::Float(_) => None,
        Value::Text(t) => crate::plan::bytes_with_unit(t).map(i128::from),
    }
}

fn number(v: &Value, what: &str) -> Result<f64, String> {
    let x = v.number().ok_or_else(|| format!("{what} \"{}\" is not a number (nor a byte size such as \"4 MiB\")", v.label()))?;
    if !x.is_finite() {
        return Err(format!("{what} {x} is not a finite number"));
    }
    Ok(x)
}

/// Check the range and count its values; at most `limit` are allowed.
fn steps(start: &Value, end: &Value, step: &Value, limit: u64) -> Result<Steps, String> {
    let (a, b, s) = (number(start, "start")?, number(end, "end")?, number(step, "step")?);
    if s <= 0.0 {
        return Err(format!("step {} must be positive", step.label()));
    }
    if b < a {
        return Err(format!("empty axis: end {} is below start {}", end.label(), start.label()));
    }
    let too_many = |n: String| format!("{n} values (from {} to {} in steps of {}); at most {limit}", start.label(), end.label(), step.label());
    if let (Some(a), Some(b), Some(s)) = (integer(start), integer(end), integer(step)) {
        // Exact: |b - a| < 2^65 and s >= 1, so nothing here overflows an i128.
        let count = (b - a) / s + 1;
        return match u64::try_from(count) {
            Ok(c) if c <= limit => Ok(Steps::Int { start: a, step: s, count: c }),
            _ => Err(too_many(count.to_string())),
        };
    }
    let q = (b - a) / s;
    if !q.is_finite() || q >= limit as f64 {
        let n = q.floor() + 1.0;
        return Err(too_many(match n {
            _ if !n.is_finite() => "infinitely many".into(),
            _ if n < 1e15 => format!("{n:.0}"),
            _ => format!("about {n:.3e}"),
        }));
    }
    let whole = if (q - q.round()).abs() <= FLOAT_SLACK * q.max(1.0) { q.round() } else { q.floor() };
    // q is finite, non-negative and below `limit` (a u64), so the conversion is exact.
    let count = whole as u64 + 1;
    if count > limit {
        return Err(too_many(count.to_string()));
    }
    Ok(Steps::Float { start: a, step: s, count })
}

/// How many values the range has (at most `limit`; more is an error naming the count).
pub fn count(start: &Value, end: &Value, step: &Value, limit: u64) -> Result<u64, String> {
    Ok(match steps(start, end, step, limit)? {
        Steps::Int { count, .. } | Steps::Float { count, .. } => count,
    })
}

/// The range's values (at most `limit`).
pub fn values(start: &Value, end: &Value, step: &Value, limit: u64) -> Result<Vec<Value>, String> {
    match steps(start, end, step, limit)? {
        Steps::Int { start: a, step: s, count } => (0..i128::from(count))
            .map(|i| {
                let x = a + s * i;
                i64::try_from(x).map(Value::Int).map_err(|_| format!("value {x} does not fit a 64-bit signed integer"))
            })
            .collect(),
        Steps::Float { start: a, step: s, count } => Ok((0..count).map(|i| Value::Float(a + s * i as f64)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(i: i64) -> Value {
        Value::Int(i)
    }

    fn float(f: f64) -> Value {
        Value::Float(f)
    }

    #[test]
    fn integer_ranges_are_exact_and_include_the_end() {
        assert_eq!(values(&int(8), &int(104), &int(8), 100).unwrap().len(), 13);
        assert_eq!(values(&int(1), &int(10), &int(4), 100).unwrap(), [int(1), int(5), int(9)]);
        let mib = |t: &str| Value::Text(t.into());
        assert_eq!(values(&mib("1 MiB"), &mib("4 MiB"), &mib("1 MiB"), 100).unwrap(), [int(1 << 20), int(2 << 20), int(3 << 20), int(4 << 20)]);
        // Beyond f64's 53-bit mantissa: still exact.
        let big = (1i64 << 60) + 1;
        assert_eq!(values(&int(big), &int(big + 2), &int(1), 10).unwrap(), [int(big), int(big + 1), int(big + 2)]);
    }

    #[test]
    fn float_ranges_count_the_end_despite_rounding() {
        // (0.3 - 0.1) / 0.1 = 1.9999999999999998 in binary floating point.
        assert_eq!(count(&float(0.1), &float(0.3), &float(0.1), 100).unwrap(), 3);
        assert_eq!(count(&float(0.0), &float(1.0), &float(0.3), 100).unwrap(), 4);
    }

    #[test]
    fn bad_steps_and_huge_counts_are_errors_not_allocations() {
        let e = count(&int(0), &int(1), &float(1e-300), 100_000).unwrap_err();
        assert!(e.contains("infinitely many") || e.contains("values"), "{e}");
        let e = count(&int(0), &int(1_000_000_000), &int(1), 100_000).unwrap_err();
        assert!(e.starts_with("1000000001 values") && e.contains("at most 100000"), "{e}");
        let e = count(&float(0.0), &float(1e6), &float(1e-3), 100_000).unwrap_err();
        assert!(e.starts_with("1000000001 values"), "{e}");
        assert!(count(&int(0), &int(10), &int(0), 100).unwrap_err().contains("must be positive"));
        assert!(count(&int(0), &int(10), &int(-1), 100).unwrap_err().contains("must be positive"));
        assert!(count(&int(0), &int(10), &float(f64::NAN), 100).unwrap_err().contains("not a finite"));
        assert!(count(&int(0), &float(f64::INFINITY), &int(1), 100).unwrap_err().contains("not a finite"));
        assert!(count(&int(5), &int(4), &int(1), 100).unwrap_err().contains("empty axis"));
        assert!(count(&Value::Text("lots".into()), &int(4), &int(1), 100).unwrap_err().contains("not a number"));
        let e = values(&Value::Text("18446744073709551614 B".into()), &Value::Text("18446744073709551615 B".into()), &int(1), 10).unwrap_err();
        assert!(e.contains("does not fit a 64-bit signed integer"), "{e}");
    }
}
