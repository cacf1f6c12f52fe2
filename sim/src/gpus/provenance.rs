//! Where each number of a config comes from, read from its comment (`hipscope gpus --fidelity`).
//!
//! The convention (configs/README.md, "Provenance markers"): the comment of every numeric field
//! starts with one word naming its class, `measured`, `cited`, `doc`, `peak`, `assumed` or
//! `calibrated`. The comment is the one on the field's line, else the block of comment lines
//! directly above it (its first word). The configs are parsed for values by serde; this module
//! reads only the text, line by line, to pair each numeric field with its marker.

use serde::Serialize;

/// The provenance class of a config value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    /// Read from a measurement of this device (a file under ../shared, or a fit to one).
    Measured,
    /// A sustained or measured figure from a published source (article, paper, vendor blog).
    Cited,
    /// A documented hardware fact (vendor specification, ISA guide, driver or compiler source):
    /// a size, a count, a width; never a rate the hardware may not sustain.
    Doc,
    /// A vendor peak rate or clock, which sustained operation does not reach.
    Peak,
    /// No source for this device: a guess, or another device's figure, with its reason.
    Assumed,
    /// Fitted so that simulated results match a measured data set.
    Calibrated,
}

impl Provenance {
    pub const ALL: [Provenance; 6] = [Provenance::Measured, Provenance::Cited, Provenance::Doc, Provenance::Peak, Provenance::Assumed, Provenance::Calibrated];

    pub fn word(self) -> &'static str {
        match self {
            Provenance::Measured => "measured",
            Provenance::Cited => "cited",
            Provenance::Doc => "doc",
            Provenance::Peak => "peak",
            Provenance::Assumed => "assumed",
            Provenance::Calibrated => "calibrated",
        }
    }

    fn from_word(w: &str) -> Option<Provenance> {
        Provenance::ALL.into_iter().find(|p| p.word() == w)
    }
}

/// One numeric field of a config text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// Dotted path of the field (`timing.dram.bandwidth_gb_per_s`).
    pub path: String,
    /// The value as written.
    pub value: String,
    /// The class its comment names; `None` when the comment has no marker (or there is none).
    pub class: Option<Provenance>,
    /// 1-based line of the field in the text.
    pub line: usize,
    /// The comment the class was read from, marker included.
    pub comment: String,
}

impl Field {
    /// Whether the value is a rate (bandwidth), the kind a vendor quotes as a peak.
    pub fn is_rate(&self) -> bool {
        self.path.contains("bandwidth") || self.path.ends_with("_per_s")
    }
}

/// Splits a line into code and comment (`//` outside string literals).
fn split_comment(line: &str) -> (&str, Option<&str>) {
    let mut in_str = false;
    for (i, c) in line.char_indices() {
        if c == '"' {
            in_str = !in_str;
        } else if !in_str && line[i..].starts_with("//") {
            return (&line[..i], Some(line[i + 2..].trim()));
        }
    }
    (line, None)
}

/// The class a comment names by its first word.
pub fn marker(comment: &str) -> Option<Provenance> {
    let word: String = comment.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    Provenance::from_word(&word)
}

/// `ident: <number>` pairs of a code fragment, and the identifier the fragment opens with when
/// it opens a bracket (`dram: (`, `mall: Some((`).
fn numeric_fields(code: &str) -> Vec<(String, String)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b':' {
            let start = code[..i].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |p| p + 1);
            let name = &code[start..i];
            let rest = code[i + 1..].trim_start();
            let rest = rest.strip_prefix("Some(").unwrap_or(rest);
            let num: String = rest.chars().take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '_' | 'e' | 'E')).collect();
            if !name.is_empty() && num.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                out.push((name.to_string(), num));
            }
        }
        i += 1;
    }
    out
}

/// The section a line opens and closes itself (`reverse: Some((latency_ns: 1.0, ...))`,
/// `kind: Pcie(gen: 5, lanes: 16)`): the name before the first `:` when a bracket follows it,
/// directly or after a variant name.
fn inline_section(code: &str) -> Option<&str> {
    let t = code.trim_start();
    let (name, after) = t.split_once(':')?;
    let after = after.trim_start().trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
    let is_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (is_name && after.starts_with('(')).then_some(name)
}

/// The first line of the comment block directly above line `i`, without its `//`.
fn block_above(lines: &[&str], i: usize) -> Option<String> {
    let mut first = None;
    let mut j = i;
    while j > 0 && lines[j - 1].trim_start().starts_with("//") {
        j -= 1;
        first = Some(lines[j].trim_start()[2..].trim().to_string());
    }
    first
}

/// Tracks the nesting of named sections (`timing: Some((`, `dram: (`) through the lines.
#[derive(Default)]
struct Sections {
    depth: i32,
    /// (name, depth before it opened).
    open: Vec<(String, i32)>,
}

impl Sections {
    fn prefix(&self) -> String {
        self.open.iter().map(|(n, _)| format!("{n}.")).collect()
    }

    /// Accounts for one line's code: a line starting `name:` that leaves brackets open opens
    /// section `name`; closing brackets close sections.
    fn feed(&mut self, code: &str) {
        let opens = code.matches(['(', '[']).count() as i32;
        let closes = code.matches([')', ']']).count() as i32;
        let before = self.depth;
        self.depth += opens - closes;
        if self.depth > before {
            let t = code.trim_start();
            if let Some(p) = t.find(':') {
                let name = &t[..p];
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.open.push((name.to_string(), before));
                }
            }
        }
        while self.open.last().is_some_and(|(_, d)| self.depth <= *d) {
            self.open.pop();
        }
    }
}

/// Every numeric field of a config text with its marker.
pub fn scan(text: &str) -> Vec<Field> {
    let lines: Vec<&str> = text.lines().collect();
    let mut sections = Sections::default();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let (code, comment) = split_comment(line);
        let fields = numeric_fields(code);
        if !fields.is_empty() {
            let comment = comment.map(str::to_string).or_else(|| block_above(&lines, i)).unwrap_or_default();
            let class = marker(&comment);
            // An inline section (`reverse: Some((latency_ns: 1.0, ...))`) names its fields.
            let prefix = sections.prefix() + &inline_section(code).map(|n| format!("{n}.")).unwrap_or_default();
            for (name, value) in fields {
                out.push(Field { path: format!("{prefix}{name}"), value, class, line: i + 1, comment: comment.clone() });
            }
        }
        sections.feed(code);
    }
    out
}
