//! Spec parameters and integer expressions: one spec for every problem size.
//!
//! A spec declares `params: {"n": 1048576, "groups": "n/256"}` and writes sizes as strings
//! that are expressions over them: `bytes: "4*n"`, `grid: ("n", 1, 1)`, `U32("n")`. Numbers stay
//! numbers, so specs without params read as before. `--set n=65536` replaces a declared value.
//!
//! Expressions: integer literals (decimal, or hex with `0x`), parameter names, `+ - * / %`,
//! unary minus and parentheses, with the usual precedence. Arithmetic is on 128-bit integers
//! and checked (overflow and division by zero are errors); `/` and `%` truncate toward zero
//! as in C. The result must fit the field's type.
//!
//! The values are worked out while the spec is deserialized: the fields that accept
//! expressions use the deserializers below, which read the parameter values of the spec being
//! parsed from [`with_params`]. Errors therefore carry the field path and the line and column
//! of the expression.

use super::model::OrderedMap;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::cell::RefCell;
use std::fmt;

/// Longest expression text and deepest nesting accepted (parsing is recursive).
const MAX_TEXT: usize = 1000;
const MAX_DEPTH: usize = 64;

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Lit(i128),
    Param(String),
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
}

/// Parameter values in declaration order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params(pub Vec<(String, i128)>);

impl Params {
    pub fn get(&self, name: &str) -> Option<i128> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    fn names(&self) -> String {
        if self.0.is_empty() {
            return "the spec declares none".into();
        }
        let n: Vec<&str> = self.0.iter().map(|(n, _)| n.as_str()).collect();
        format!("params: {}", n.join(", "))
    }
}

/// A `params` value as written: a number, or an expression over the parameters declared
/// before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamValue {
    Int(i128),
    Expr(String),
}

impl Expr {
    /// The value with `params`; errors say what went wrong (unknown name, overflow, division
    /// by zero).
    pub fn eval(&self, params: &Params) -> Result<i128, String> {
        Ok(match self {
            Expr::Lit(v) => *v,
            Expr::Param(n) => params.get(n).ok_or_else(|| format!("unknown parameter `{n}` ({})", params.names()))?,
            Expr::Neg(e) => e.eval(params)?.checked_neg().ok_or("overflow")?,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(params)?, b.eval(params)?);
                let r = match op {
                    Op::Add => a.checked_add(b),
                    Op::Sub => a.checked_sub(b),
                    Op::Mul => a.checked_mul(b),
                    Op::Div | Op::Rem if b == 0 => return Err(format!("division by zero ({a} {} 0)", if *op == Op::Div { "/" } else { "%" })),
                    Op::Div => a.checked_div(b),
                    Op::Rem => a.checked_rem(b),
                };
                r.ok_or_else(|| "overflow (beyond 128-bit integers)".to_string())?
            }
        })
    }
}

/// Parse an expression.
pub fn parse(text: &str) -> Result<Expr, String> {
    if text.len() > MAX_TEXT {
        return Err(format!("longer than {MAX_TEXT} characters"));
    }
    let mut p = Parser { s: text.as_bytes(), at: 0, depth: 0 };
    let e = p.sum()?;
    p.skip_ws();
    if p.at < p.s.len() {
        return Err(format!("unexpected `{}` at column {}", p.s[p.at] as char, p.at + 1));
    }
    Ok(e)
}

/// Parse and evaluate `text` with `params`; the error quotes the text.
pub fn eval_text(text: &str, params: &Params) -> Result<i128, String> {
    parse(text).and_then(|e| e.eval(params)).map_err(|m| format!("`{text}`: {m}"))
}

/// Recursive descent over `sum := product (('+'|'-') product)*`,
/// `product := unary (('*'|'/'|'%') unary)*`, `unary := '-' unary | atom`,
/// `atom := number | name | '(' sum ')'`.
struct Parser<'s> {
    s: &'s [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.at).copied()
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.product()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let op = if c == b'+' { Op::Add } else { Op::Sub };
            e = Expr::Bin(op, Box::new(e), Box::new(self.product()?));
        }
        Ok(e)
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut e = self.unary()?;
        while let Some(c @ (b'*' | b'/' | b'%')) = self.peek() {
            self.at += 1;
            let op = match c {
                b'*' => Op::Mul,
                b'/' => Op::Div,
                _ => Op::Rem,
            };
            e = Expr::Bin(op, Box::new(e), Box::new(self.unary()?));
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep"));
        }
        let e = if self.peek() == Some(b'-') {
            self.at += 1;
            Expr::Neg(Box::new(self.unary()?))
        } else {
            self.atom()?
        };
        self.depth -= 1;
        Ok(e)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let start = self.at;
        match self.peek() {
            Some(b'(') => {
                self.at += 1;
                let e = self.sum()?;
                if self.peek() != Some(b')') {
                    return Err(format!("missing `)` for the `(` at column {}", start + 1));
                }
                self.at += 1;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() => {
                let begin = self.at;
                while self.s.get(self.at).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                    self.at += 1;
                }
                let word = std::str::from_utf8(&self.s[begin..self.at]).unwrap_or_default();
                number(word).map(Expr::Lit)
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let begin = self.at;
                while self.s.get(self.at).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                    self.at += 1;
                }
                Ok(Expr::Param(String::from_utf8_lossy(&self.s[begin..self.at]).into_owned()))
            }
            Some(c) => Err(format!("expected a number, a parameter or `(`, found `{}` at column {}", c as char, self.at + 1)),
            None => Err("expected a number, a parameter or `(` at the end".into()),
        }
    }
}

/// An integer literal: decimal or `0x` hex.
fn number(word: &str) -> Result<i128, String> {
    let parsed = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16),
        None => word.parse::<i128>(),
    };
    parsed.map_err(|_| format!("`{word}` is not an integer"))
}

/// Is `name` usable as a parameter name (an identifier)?
pub fn is_name(name: &str) -> bool {
    let mut c = name.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The parameter values: each declared value (a number, or an expression over the ones
/// declared before it) unless `overrides` (`--set NAME=VALUE`) replaces it. Errors are
/// `(field, message)`; no field for a bad override.
pub fn resolve(declared: &OrderedMap<ParamValue>, overrides: &[(String, i128)]) -> Result<Params, (Option<String>, String)> {
    for (i, (name, _)) in overrides.iter().enumerate() {
        if declared.get(name).is_none() {
            let names: Vec<&str> = declared.keys().collect();
            let known = if names.is_empty() { "the spec declares none".to_string() } else { format!("params: {}", names.join(", ")) };
            return Err((None, format!("--set {name}: the spec has no parameter `{name}` ({known})")));
        }
        if overrides[..i].iter().any(|(n, _)| n == name) {
            return Err((None, format!("--set {name}: given more than once")));
        }
    }
    let mut out = Params::default();
    for (name, v) in declared.iter() {
        let field = format!("params.{name}");
        if !is_name(name) {
            return Err((Some(field), "a parameter name is a letter or `_` followed by letters, digits and `_`".into()));
        }
        let value = match (overrides.iter().find(|(n, _)| n == name), v) {
            (Some((_, o)), _) => *o,
            (None, ParamValue::Int(i)) => *i,
            (None, ParamValue::Expr(text)) => eval_text(text, &out).map_err(|m| (Some(field.clone()), m))?,
        };
        out.0.push((name.to_string(), value));
    }
    Ok(out)
}

/// `NAME=VALUE` from the command line; the value is an integer expression without names.
pub fn parse_override(arg: &str) -> Result<(String, i128), String> {
    let (name, value) = arg.split_once('=').ok_or_else(|| format!("--set {arg}: expected NAME=VALUE"))?;
    let name = name.trim();
    if !is_name(name) {
        return Err(format!("--set {arg}: `{name}` is not a parameter name"));
    }
    let v = eval_text(value.trim(), &Params::default()).map_err(|m| format!("--set {arg}: {m}"))?;
    Ok((name.to_string(), v))
}

thread_local! {
    /// The parameter values of the spec being deserialized on this thread.
    static CURRENT: RefCell<Params> = RefCell::new(Params::default());
}

/// Run `f` (a deserialization) with `params` as the values expressions see. The previous
/// values come back afterwards, also when `f` unwinds.
pub fn with_params<R>(params: Params, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Params>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(p) = self.0.take() {
                CURRENT.with(|c| *c.borrow_mut() = p);
            }
        }
    }
    let old = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), params));
    let _restore = Restore(Some(old));
    f()
}

fn eval_current(text: &str) -> Result<i128, String> {
    CURRENT.with(|c| eval_text(text, &c.borrow()))
}

/// Integer types a field can hold, with their range for messages.
pub trait IntField: Copy + TryFrom<i128> {
    const NAME: &'static str;
    const MIN: i128;
    const MAX: i128;
}

macro_rules! int_field {
    ($($t:ty),*) => {$(
        impl IntField for $t {
            const NAME: &'static str = stringify!($t);
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
        }
    )*};
}
int_field!(u8, i8, u16, i16, u32, i32, u64, i64);

fn fit<T: IntField, E: de::Error>(v: i128, text: Option<&str>) -> Result<T, E> {
    T::try_from(v).map_err(|_| {
        let what = text.map_or_else(|| v.to_string(), |t| format!("`{t}` = {v}"));
        E::custom(format!("{what} does not fit in {} ({}..={})", T::NAME, T::MIN, T::MAX))
    })
}

/// A field value that may be written as a number or as an expression string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evaluated<T>(pub T);

impl<'de, T: IntField> Deserialize<'de> for Evaluated<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<T: IntField> Visitor<'_> for V<T> {
            type Value = Evaluated<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "an integer ({}) or an expression string such as \"4*n\"", T::NAME)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                fit(v as i128, None).map(Evaluated)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                fit(v as i128, None).map(Evaluated)
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Self::Value, E> {
                fit(v, None).map(Evaluated)
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Self::Value, E> {
                let v = i128::try_from(v).map_err(|_| E::custom(format!("{v} does not fit in {}", T::NAME)))?;
                fit(v, None).map(Evaluated)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                let v = eval_current(text).map_err(E::custom)?;
                fit(v, Some(text)).map(Evaluated)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A float field that may also be an integer expression string (`F32("n")`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvaluatedFloat(pub f64);

impl<'de> Deserialize<'de> for EvaluatedFloat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = EvaluatedFloat;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or an integer expression string such as \"n/2\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<EvaluatedFloat, E> {
                Ok(EvaluatedFloat(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<EvaluatedFloat, E> {
                Ok(EvaluatedFloat(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<EvaluatedFloat, E> {
                Ok(EvaluatedFloat(v as f64))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<EvaluatedFloat, E> {
                eval_current(text).map(|v| EvaluatedFloat(v as f64)).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// `deserialize_with` for integer fields.
pub fn int<'de, D: Deserializer<'de>, T: IntField>(d: D) -> Result<T, D::Error> {
    Evaluated::<T>::deserialize(d).map(|e| e.0)
}

/// `deserialize_with` for optional integer fields.
pub fn opt_int<'de, D: Deserializer<'de>, T: IntField>(d: D) -> Result<Option<T>, D::Error> {
    Option::<Evaluated<T>>::deserialize(d).map(|o| o.map(|e| e.0))
}

/// `deserialize_with` for `(x, y, z)` sizes.
pub fn triple<'de, D: Deserializer<'de>>(d: D) -> Result<(u32, u32, u32), D::Error> {
    <(Evaluated<u32>, Evaluated<u32>, Evaluated<u32>)>::deserialize(d).map(|(x, y, z)| (x.0, y.0, z.0))
}

/// `deserialize_with` for f32 fields.
pub fn f32_value<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    EvaluatedFloat::deserialize(d).map(|e| e.0 as f32)
}

/// `deserialize_with` for f64 fields.
pub fn f64_value<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    EvaluatedFloat::deserialize(d).map(|e| e.0)
}

/// An expression as a `Num` (inits' values): evaluated now.
pub(crate) fn eval_for_num(text: &str) -> Result<i128, String> {
    eval_current(text)
}

impl<'de> Deserialize<'de> for ParamValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ParamValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or an expression string over earlier params")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ParamValue, E> {
                Ok(ParamValue::Int(v as i128))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ParamValue, E> {
                Ok(ParamValue::Int(v as i128))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<ParamValue, E> {
                Ok(ParamValue::Int(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ParamValue, E> {
                parse(v).map_err(|m| E::custom(format!("`{v}`: {m}")))?;
                Ok(ParamValue::Expr(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(pairs: &[(&str, i128)]) -> Params {
        Params(pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect())
    }

    #[test]
    fn precedence_parentheses_and_c_division() {
        let n = p(&[("n", 1000), ("k", 3)]);
        let v = |t: &str| eval_text(t, &n);
        assert_eq!(v("4*n"), Ok(4000));
        assert_eq!(v("1 + 2 * 3"), Ok(7));
        assert_eq!(v("(1 + 2) * 3"), Ok(9));
        assert_eq!(v("(n+255)/256*256"), Ok(1024));
        assert_eq!(v("n % 256"), Ok(232));
        assert_eq!(v("10 - 4 - 3"), Ok(3), "left associative");
        assert_eq!(v("-7 / 2"), Ok(-3), "truncates toward zero");
        assert_eq!(v("-7 % 2"), Ok(-1));
        assert_eq!(v("--k"), Ok(3));
        assert_eq!(v("0x100 * k"), Ok(768));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let n = p(&[("n", 5)]);
        let e = |t: &str| eval_text(t, &n).unwrap_err();
        assert_eq!(e("n/0"), "`n/0`: division by zero (5 / 0)");
        assert_eq!(e("n%(n-5)"), "`n%(n-5)`: division by zero (5 % 0)");
        assert_eq!(e("m*2"), "`m*2`: unknown parameter `m` (params: n)");
        assert!(e("170141183460469231731687303715884105727 + 1").contains("overflow"));
        assert!(e("4*").contains("at the end"));
        assert!(e("4 $ 2").contains("unexpected `$` at column 3"));
        assert!(e("(4").contains("missing `)`"));
        assert!(e("12abc").contains("`12abc` is not an integer"));
        assert!(e(&"(".repeat(100)).contains("nested more than"));
        assert!(e(&"1+".repeat(600)).contains("longer than"));
    }

    #[test]
    fn params_resolve_in_order_with_overrides() {
        let declared = OrderedMap(vec![("n".into(), ParamValue::Int(1024)), ("groups".into(), ParamValue::Expr("n/256".into()))]);
        assert_eq!(resolve(&declared, &[]), Ok(p(&[("n", 1024), ("groups", 4)])));
        assert_eq!(resolve(&declared, &[("n".into(), 4096)]), Ok(p(&[("n", 4096), ("groups", 16)])));
        let e = resolve(&declared, &[("m".into(), 1)]).unwrap_err();
        assert_eq!(e.1, "--set m: the spec has no parameter `m` (params: n, groups)");
        let later = OrderedMap(vec![("a".into(), ParamValue::Expr("b".into())), ("b".into(), ParamValue::Int(1))]);
        let e = resolve(&later, &[]).unwrap_err();
        assert_eq!(e, (Some("params.a".into()), "`b`: unknown parameter `b` (the spec declares none)".into()));
        assert_eq!(parse_override("n=65536"), Ok(("n".into(), 65536)));
        assert_eq!(parse_override("n = 1 << 4").unwrap_err(), "--set n = 1 << 4: `1 << 4`: unexpected `<` at column 3");
        assert!(parse_override("n").unwrap_err().contains("expected NAME=VALUE"));
        assert!(parse_override("4n=1").unwrap_err().contains("not a parameter name"));
    }
}
