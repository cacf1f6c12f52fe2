//! A cursor over litmus source text that knows its line and column, skips the comment
//! styles every dialect uses (`(* … *)`, `/* … */`, `// …`), and reads the small tokens the
//! parsers share (identifiers, integers, punctuation).

use super::error::{ParseResult, SyntaxError};
use super::program::Span;
use hipscope_mm::Value;

/// The first whitespace-separated word of `source` and where it starts.
pub fn first_word(source: &str) -> (&str, Span) {
    let mut cur = Cursor::new(source);
    cur.skip_blank();
    let span = cur.span();
    let start = cur.offset();
    while cur.peek().is_some_and(|c| !c.is_whitespace()) {
        cur.bump();
    }
    (&source[start..cur.offset()], span)
}

/// A position in the text; cheap to copy, so parsers can back-track.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    column: u32,
    /// Whether `(*` opens a comment; C code turns this off, where `if (*x == 1)` is a
    /// dereference.
    ml_comments: bool,
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Cursor<'a> {
        Cursor { src, pos: 0, line: 1, column: 1, ml_comments: true }
    }

    /// A cursor over `src` whose first character is at `at` of the enclosing file.
    pub fn at(src: &'a str, at: Span) -> Cursor<'a> {
        Cursor { src, pos: 0, line: at.line.max(1), column: at.column.max(1), ml_comments: true }
    }

    /// Turns `(* … *)` comments on (the default) or off.
    pub fn set_ml_comments(&mut self, on: bool) {
        self.ml_comments = on;
    }

    pub fn span(&self) -> Span {
        Span { line: self.line, column: self.column }
    }

    pub fn offset(&self) -> usize {
        self.pos
    }

    pub fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }

    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    /// Skips whitespace and comments. An unterminated block comment runs to the end.
    pub fn skip_blank(&mut self) {
        loop {
            let rest = self.rest();
            if self.ml_comments && rest.starts_with("(*") {
                self.skip_past("*)");
            } else if rest.starts_with("/*") {
                self.skip_past("*/");
            } else if rest.starts_with("//") {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else if self.peek().is_some_and(char::is_whitespace) {
                self.bump();
            } else {
                return;
            }
        }
    }

    fn skip_past(&mut self, end: &str) {
        self.bump();
        self.bump();
        while !self.at_end() && !self.rest().starts_with(end) {
            self.bump();
        }
        for _ in 0..end.len() {
            self.bump();
        }
    }

    /// After blanks, does the text continue with `token`?
    pub fn looking_at(&mut self, token: &str) -> bool {
        self.skip_blank();
        self.rest().starts_with(token)
    }

    /// Consumes `token` (after blanks) if it is next.
    pub fn eat(&mut self, token: &str) -> bool {
        if self.looking_at(token) {
            for _ in token.chars() {
                self.bump();
            }
            true
        } else {
            false
        }
    }

    /// Consumes `token` or fails with "expected `token`".
    pub fn expect(&mut self, token: &str) -> ParseResult<()> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{token}`, found {}", self.describe_next())))
        }
    }

    /// An identifier: a letter or `_` followed by letters, digits and `_`.
    pub fn ident(&mut self) -> Option<&'a str> {
        self.skip_blank();
        let start = self.pos;
        if !self.peek().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') {
            return None;
        }
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            self.bump();
        }
        Some(&self.src[start..self.pos])
    }

    /// An identifier or the error "expected <what>".
    pub fn expect_ident(&mut self, what: &str) -> ParseResult<&'a str> {
        match self.ident() {
            Some(name) => Ok(name),
            None => Err(self.error(format!("expected {what}, found {}", self.describe_next()))),
        }
    }

    /// A decimal or `0x` integer with an optional sign.
    pub fn integer(&mut self) -> Option<ParseResult<Value>> {
        self.skip_blank();
        let span = self.span();
        let save = self.clone();
        let negative = self.peek() == Some('-');
        if negative || self.peek() == Some('+') {
            self.bump();
        }
        if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
            *self = save;
            return None;
        }
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            self.bump();
        }
        let digits = &self.src[start..self.pos];
        // The magnitude may take all 64 bits: `18446744073709551615` is an `unsigned long`'s
        // largest value, and `-9223372036854775808` a `long`'s smallest.
        let parsed = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => digits.parse::<u64>(),
        };
        Some(match parsed {
            Ok(v) if negative => Ok(-Value::from(v)),
            Ok(v) => Ok(Value::from(v)),
            Err(_) => Err(SyntaxError::new(span, format!("`{digits}` is not an integer that fits in 64 bits"))),
        })
    }

    /// An integer or the error "expected <what>".
    pub fn expect_integer(&mut self, what: &str) -> ParseResult<Value> {
        match self.integer() {
            Some(v) => v,
            None => Err(self.error(format!("expected {what}, found {}", self.describe_next()))),
        }
    }

    /// An error at the cursor.
    pub fn error(&self, message: impl Into<String>) -> SyntaxError {
        SyntaxError::new(self.span(), message)
    }

    /// "`tok`" for the next few characters, or "the end of the file".
    pub fn describe_next(&self) -> String {
        let mut probe = self.clone();
        probe.skip_blank();
        let rest = probe.rest();
        if rest.is_empty() {
            return "the end of the file".to_string();
        }
        let word: String = rest.chars().take_while(|c| !c.is_whitespace()).take(16).collect();
        format!("`{word}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_columns_after_comments() {
        let mut c = Cursor::new("(* a\n comment *) // x\n  foo 12");
        assert_eq!(c.ident(), Some("foo"));
        assert_eq!(c.span(), Span { line: 3, column: 6 });
        assert_eq!(c.integer(), Some(Ok(12)));
        assert!(c.at_end());
    }

    #[test]
    fn integers_take_signs_and_hex_and_reject_overflow() {
        assert_eq!(Cursor::new("-3").integer(), Some(Ok(-3)));
        assert_eq!(Cursor::new("0x1f").integer(), Some(Ok(31)));
        assert!(matches!(Cursor::new("99999999999999999999").integer(), Some(Err(_))));
        assert_eq!(Cursor::new("18446744073709551615").integer(), Some(Ok(u64::MAX.into())));
        assert_eq!(Cursor::new("-0x8000000000000000").integer(), Some(Ok(i64::MIN.into())));
        assert_eq!(Cursor::new("- x").integer(), None);
    }

    #[test]
    fn ml_comments_can_be_turned_off_for_c_code() {
        let mut c = Cursor::new("(*x");
        c.set_ml_comments(false);
        assert!(c.eat("("));
        assert!(c.eat("*"));
        assert_eq!(c.ident(), Some("x"));
    }

    #[test]
    fn expect_names_what_it_found() {
        let mut c = Cursor::new("  ;");
        let e = c.expect("(").unwrap_err();
        assert!(e.message.contains("expected `(`, found `;`"), "{}", e.message);
        assert_eq!(e.span, Span { line: 1, column: 3 });
    }
}
