//! The final part every dialect shares: `locations […]`, `filter (…)` and the condition
//! `exists (…)` / `~exists (…)` / `forall (…)`, over terms `1:r0`, `P1:r0`, `x`, `[x]` and
//! integers, with `/\` `\/` `~` `not` `=>` (herd) and `&&` `||` `!` `==` `!=` (Dartagnan).

use super::error::ParseResult;
use super::limits::MAX_CONDITION_COMPARISONS;
use super::program::{CmpOp, Condition, LocId, Prop, Quantifier, RegId, Span, Term};
use super::text::Cursor;
use hipscope_mm::ValueType;

/// How the condition's names become ids; each dialect parser implements it over its own
/// tables.
pub trait Names {
    /// `thread:reg` → thread index and register. `thread` is as written (`1` or `P1`).
    /// `Err` says why the name is not a register of the test (no such thread, no such
    /// register).
    fn register(&mut self, thread: &str, reg: &str) -> Result<(u16, RegId), String>;
    /// A shared location by name.
    fn location(&mut self, name: &str) -> Option<LocId>;
    /// The declared type of a register or location term (a constant compared with it is
    /// read as a value of that type).
    fn value_type(&mut self, term: &Term) -> ValueType;
}

/// The parsed final part.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Final {
    pub observed: Vec<Term>,
    pub filter: Option<Prop>,
    pub condition: Option<Condition>,
}

/// Parses the final part, from the first of `locations`, `filter`, `exists`, `~exists`,
/// `forall` to the end of the text. At least a condition or a filter must be present.
pub fn parse_final(cur: &mut Cursor<'_>, names: &mut dyn Names) -> ParseResult<Final> {
    let mut out = Final::default();
    if cur.eat("locations") {
        out.observed = parse_locations(cur, names)?;
    }
    if cur.eat("filter") {
        out.filter = Some(parse_prop(cur, names)?);
    }
    cur.skip_blank();
    let span = cur.span();
    let quantifier = if cur.eat("~exists") || cur.eat("~ exists") {
        Some(Quantifier::NotExists)
    } else if cur.eat("exists") {
        Some(Quantifier::Exists)
    } else if cur.eat("forall") {
        Some(Quantifier::Forall)
    } else {
        None
    };
    if let Some(quantifier) = quantifier {
        let prop = parse_prop(cur, names)?;
        out.condition = Some(Condition { quantifier, prop, span });
    }
    cur.skip_blank();
    if !cur.at_end() {
        let what = if out.condition.is_none() && out.filter.is_none() {
            "expected `exists`, `~exists`, `forall`, `filter` or `locations`"
        } else {
            "unexpected text after the condition"
        };
        return Err(cur.error(format!("{what}, found {}", cur.describe_next())));
    }
    if out.condition.is_none() && out.filter.is_none() {
        return Err(cur.error("missing final condition (`exists`, `~exists` or `forall`)"));
    }
    Ok(out)
}

fn parse_locations(cur: &mut Cursor<'_>, names: &mut dyn Names) -> ParseResult<Vec<Term>> {
    cur.expect("[")?;
    let mut terms = Vec::new();
    while !cur.eat("]") {
        if cur.at_end() {
            return Err(cur.error("unterminated `locations [`"));
        }
        if terms.len() >= MAX_CONDITION_COMPARISONS {
            return Err(cur.error(format!("`locations […]` lists more than {MAX_CONDITION_COMPARISONS} terms")));
        }
        terms.push(parse_term(cur, names)?);
        cur.eat(";");
    }
    Ok(terms)
}

/// Deepest nesting of parentheses, negations and implications a condition may have; the
/// parser recurses once per level, so hostile input must not reach the stack's limit.
const MAX_DEPTH: u32 = 200;

/// A proposition: implication binds loosest, then `\/`, then `/\`, then negation.
///
/// Chains of `/\` and `\/` are read in a loop, but each link deepens the tree by one, and
/// later layers walk the tree recursively: the number of comparisons is limited too
/// ([`MAX_CONDITION_COMPARISONS`]), so the tree's height is bounded by the two limits.
pub fn parse_prop(cur: &mut Cursor<'_>, names: &mut dyn Names) -> ParseResult<Prop> {
    let mut p = PropParser { cur, names, comparisons: 0 };
    p.prop_at(0)
}

struct PropParser<'c, 'a, 'n> {
    cur: &'c mut Cursor<'a>,
    names: &'n mut dyn Names,
    /// Comparisons (and `true`/`false`) read so far.
    comparisons: usize,
}

impl PropParser<'_, '_, '_> {
    fn too_deep(&self, depth: u32) -> ParseResult<()> {
        if depth > MAX_DEPTH {
            return Err(self.cur.error(format!("the condition is nested more than {MAX_DEPTH} levels deep")));
        }
        Ok(())
    }

    fn prop_at(&mut self, depth: u32) -> ParseResult<Prop> {
        self.too_deep(depth)?;
        let left = self.parse_or(depth)?;
        if self.cur.eat("=>") {
            let right = self.prop_at(depth + 1)?;
            return Ok(Prop::Implies(Box::new(left), Box::new(right)));
        }
        Ok(left)
    }

    fn parse_or(&mut self, depth: u32) -> ParseResult<Prop> {
        let mut left = self.parse_and(depth)?;
        while self.cur.eat("\\/") || self.cur.eat("||") {
            let right = self.parse_and(depth)?;
            left = Prop::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_and(&mut self, depth: u32) -> ParseResult<Prop> {
        let mut left = self.parse_unary(depth)?;
        while self.cur.eat("/\\") || self.cur.eat("&&") {
            let right = self.parse_unary(depth)?;
            left = Prop::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_unary(&mut self, depth: u32) -> ParseResult<Prop> {
        self.too_deep(depth)?;
        if self.cur.looking_at("!=") {
            return Err(self.cur.error("expected a proposition, found `!=`"));
        }
        if self.cur.eat("~") || self.cur.eat("!") || eat_keyword(self.cur, "not") {
            return Ok(Prop::Not(Box::new(self.parse_unary(depth + 1)?)));
        }
        if self.cur.eat("(") {
            let inner = self.prop_at(depth + 1)?;
            self.cur.expect(")")?;
            return Ok(inner);
        }
        self.comparisons += 1;
        self.cur.skip_blank();
        if self.comparisons > MAX_CONDITION_COMPARISONS {
            return Err(self.cur.error(format!("the condition has more than {MAX_CONDITION_COMPARISONS} comparisons; a litmus condition has a few")));
        }
        if eat_keyword(self.cur, "true") {
            return Ok(Prop::True);
        }
        if eat_keyword(self.cur, "false") {
            return Ok(Prop::False);
        }
        let left = spanned_term(self.cur, self.names)?;
        let op = parse_cmp(self.cur)?;
        let right = spanned_term(self.cur, self.names)?;
        typed_comparison(self.names, left, op, right)
    }
}

fn spanned_term(cur: &mut Cursor<'_>, names: &mut dyn Names) -> ParseResult<(Term, Span)> {
    cur.skip_blank();
    let span = cur.span();
    Ok((parse_term(cur, names)?, span))
}

/// A comparison whose constant side is read as a value of the other side's type, as C's
/// usual arithmetic conversions read it (`x == -1` for an `unsigned` `x` is `x ==
/// 4294967295`). A constant the type cannot hold is an error at the constant: the
/// comparison's result would not depend on the final state (clang-19 warns,
/// `-Wtautological-constant-out-of-range-compare`). Two registers or locations compare
/// as the values they hold.
fn typed_comparison(names: &mut dyn Names, left: (Term, Span), op: CmpOp, right: (Term, Span)) -> ParseResult<Prop> {
    let typed = |names: &mut dyn Names, constant: (Term, Span), other: &Term| -> ParseResult<Term> {
        let (Term::Const(c), at) = constant else { return Ok(constant.0) };
        if matches!(other, Term::Const(_)) {
            return Ok(constant.0);
        }
        let ty = names.value_type(other);
        match ty.literal(c) {
            Some(v) => Ok(Term::Const(v)),
            None => Err(super::SyntaxError::new(
                at,
                format!(
                    "{c} is out of range for the value it is compared with, of type {}: the comparison's result would not depend on the final state",
                    ty.describe()
                ),
            )),
        }
    };
    let l = typed(names, left, &right.0)?;
    let r = typed(names, right, &left.0)?;
    Ok(Prop::Cmp(l, op, r))
}

/// Consumes `word` only as a whole identifier (`not` but not `notx`).
fn eat_keyword(cur: &mut Cursor<'_>, word: &str) -> bool {
    let mut probe = cur.clone();
    if probe.ident() == Some(word) {
        *cur = probe;
        true
    } else {
        false
    }
}

fn parse_cmp(cur: &mut Cursor<'_>) -> ParseResult<CmpOp> {
    // Longest first, so `==` is not read as `=` followed by `=`.
    const OPS: [(&str, CmpOp); 8] =
        [("==", CmpOp::Eq), ("!=", CmpOp::Ne), ("<>", CmpOp::Ne), ("<=", CmpOp::Le), (">=", CmpOp::Ge), ("=", CmpOp::Eq), ("<", CmpOp::Lt), (">", CmpOp::Gt)];
    for (text, op) in OPS {
        if cur.eat(text) {
            return Ok(op);
        }
    }
    Err(cur.error(format!("expected a comparison (`=`, `==`, `!=`, `<`, …), found {}", cur.describe_next())))
}

/// `1:r0`, `P1:r0`, `x`, `[x]`, `*x` or an integer.
pub fn parse_term(cur: &mut Cursor<'_>, names: &mut dyn Names) -> ParseResult<Term> {
    cur.skip_blank();
    let span = cur.span();
    if cur.eat("[") {
        let name = cur.expect_ident("a location name")?;
        cur.expect("]")?;
        return location_term(name, span, cur, names);
    }
    if cur.eat("*") {
        let name = cur.expect_ident("a location name")?;
        return location_term(name, span, cur, names);
    }
    // A thread number followed by `:` is a register; otherwise an integer constant.
    let mut probe = cur.clone();
    if let Some(Ok(n)) = probe.integer() {
        if probe.eat(":") {
            *cur = probe;
            let reg = cur.expect_ident("a register name after `:`")?;
            return register_term(&n.to_string(), reg, span, names);
        }
    }
    if let Some(value) = cur.integer() {
        return Ok(Term::Const(value?));
    }
    let name = cur.expect_ident("a register (`1:r0`), a location or an integer")?;
    if cur.eat(":") {
        let reg = cur.expect_ident("a register name after `:`")?;
        return register_term(name, reg, span, names);
    }
    location_term(name, span, cur, names)
}

fn register_term(thread: &str, reg: &str, span: Span, names: &mut dyn Names) -> ParseResult<Term> {
    match names.register(thread, reg) {
        Ok((thread, reg)) => Ok(Term::Reg { thread, reg }),
        Err(why) => Err(super::SyntaxError::new(span, why)),
    }
}

fn location_term(name: &str, span: Span, _cur: &Cursor<'_>, names: &mut dyn Names) -> ParseResult<Term> {
    match names.location(name) {
        Some(loc) => Ok(Term::Loc { loc, workgroup: None }),
        None => Err(super::SyntaxError::new(span, format!("the condition names `{name}`, which is not a location of the test"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads (`0`/`P0`, `1`/`P1`) whose registers are numbered as first named;
    /// locations `x` and `y`.
    #[derive(Default)]
    struct Toy {
        regs: Vec<(u16, String)>,
    }

    impl Names for Toy {
        fn register(&mut self, thread: &str, reg: &str) -> Result<(u16, RegId), String> {
            let no_thread = || format!("the condition names thread `{thread}`, which the test does not have");
            let t: u16 = thread.trim_start_matches('P').parse().ok().filter(|t| *t < 2).ok_or_else(no_thread)?;
            let i = match self.regs.iter().position(|(tt, r)| *tt == t && r == reg) {
                Some(i) => i,
                None => {
                    self.regs.push((t, reg.to_string()));
                    self.regs.len() - 1
                }
            };
            Ok((t, RegId(i as u16)))
        }
        fn location(&mut self, name: &str) -> Option<LocId> {
            ["x", "y"].iter().position(|n| *n == name).map(|i| LocId(i as u16))
        }
        /// `x` is unsigned, everything else `int`.
        fn value_type(&mut self, term: &Term) -> ValueType {
            match term {
                Term::Loc { loc: LocId(0), .. } => ValueType::UINT,
                _ => ValueType::INT,
            }
        }
    }

    fn parse(text: &str) -> ParseResult<Final> {
        parse_final(&mut Cursor::new(text), &mut Toy::default())
    }

    fn reg(thread: u16, i: u16) -> Term {
        Term::Reg { thread, reg: RegId(i) }
    }

    #[test]
    fn herd_condition_with_conjunction() {
        let f = parse("exists (1:r0=1 /\\ 1:r1=0)").unwrap();
        let c = f.condition.unwrap();
        assert_eq!(c.quantifier, Quantifier::Exists);
        assert_eq!(c.prop, Prop::And(Box::new(Prop::Cmp(reg(1, 0), CmpOp::Eq, Term::Const(1))), Box::new(Prop::Cmp(reg(1, 1), CmpOp::Eq, Term::Const(0)))));
    }

    #[test]
    fn dartagnan_condition_with_named_threads_and_not_equal() {
        let f = parse("~exists\n(P1:r1 == 1 /\\ P1:r2 != 1)").unwrap();
        let c = f.condition.unwrap();
        assert_eq!(c.quantifier, Quantifier::NotExists);
        assert!(matches!(c.prop, Prop::And(_, ref r) if **r == Prop::Cmp(reg(1, 1), CmpOp::Ne, Term::Const(1))));
    }

    #[test]
    fn negation_disjunction_locations_and_filter() {
        let f = parse("locations [x; 0:r0;] filter (P1:r0 == 1) ~exists (not (0:r0=0) \\/ ~(x=1))").unwrap();
        assert_eq!(f.observed, vec![Term::Loc { loc: LocId(0), workgroup: None }, reg(0, 0)]);
        assert!(f.filter.is_some());
        assert!(matches!(f.condition.unwrap().prop, Prop::Or(ref a, ref b) if matches!(**a, Prop::Not(_)) && matches!(**b, Prop::Not(_))));
    }

    #[test]
    fn lone_filter_is_a_race_only_test() {
        let f = parse("filter\n(P1:r0 == 1)").unwrap();
        assert!(f.condition.is_none() && f.filter.is_some());
    }

    #[test]
    fn constants_take_the_type_they_are_compared_with() {
        let c = parse("exists (x = -1 /\\ 0:r0 = -1)").unwrap().condition.unwrap();
        let Prop::And(a, b) = c.prop else { panic!("{:?}", c.prop) };
        assert_eq!(*a, Prop::Cmp(Term::Loc { loc: LocId(0), workgroup: None }, CmpOp::Eq, Term::Const(4294967295)));
        assert_eq!(*b, Prop::Cmp(reg(0, 0), CmpOp::Eq, Term::Const(-1)));
        let e = parse("exists (0:r0 = 0 /\\ 2147483648 = 0:r0)").unwrap_err();
        assert!(e.message.contains("out of range") && e.message.contains("`int`"), "{}", e.message);
        assert_eq!((e.span.line, e.span.column), (1, 21));
        assert!(parse("exists (x = 4294967296)").unwrap_err().message.contains("`unsigned int`"));
        assert!(parse("exists (y = 2147483647 /\\ 1 = 1)").is_ok());
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = parse("exists (2:r0=1)").unwrap_err();
        assert!(e.message.contains("thread `2`"), "{}", e.message);
        assert_eq!(e.span.column, 9);
        let e = parse("exists (z=1)").unwrap_err();
        assert!(e.message.contains("`z`"), "{}", e.message);
        let e = parse("exists (x=1) junk").unwrap_err();
        assert!(e.message.contains("after the condition"), "{}", e.message);
        let e = parse("exists (x 1)").unwrap_err();
        assert!(e.message.contains("comparison"), "{}", e.message);
        assert!(parse("").unwrap_err().message.contains("missing final condition"));
        assert!(parse("exists (x=1").unwrap_err().message.contains("expected `)`"));
        let deep = format!("exists {}x=1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse(&deep).unwrap_err().message.contains("nested more than"));
        let negations = format!("exists {}x=1", "~".repeat(100_000));
        assert!(parse(&negations).unwrap_err().message.contains("nested more than"));
        for op in ["/\\", "\\/", "&&", "||"] {
            let flat = format!("exists ({})", vec!["x=1"; 300_000].join(op));
            let e = parse(&flat).unwrap_err();
            assert!(e.message.contains("more than 1024 comparisons"), "{op}: {}", e.message);
            // Reported at the comparison past the limit: the 1025th, 4 + len(op) bytes apart.
            assert_eq!(e.span.column as usize, 9 + 1024 * (3 + op.len()), "{op}");
        }
        let listed = format!("locations [{}] exists (x=1)", "x;".repeat(5000));
        assert!(parse(&listed).unwrap_err().message.contains("more than 1024 terms"));
    }
}
