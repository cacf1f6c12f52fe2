//! The crate graph points one way: isa < mm < sim < race < {grade, hip} < studies < sweep <
//! the binary. A crate's `[dependencies]` name only workspace crates
//! below it; crates of one level do not depend on each other. Crates the order does not list
//! yet are simply absent; a workspace member the order does not place fails the test, so a
//! new crate is given its level when it is added.
//!
//! The manifests are read by a small line-based reader of the tables this workspace writes
//! (`name.workspace = true`, `name = "1.0"`, one-line inline tables); anything else in a
//! dependency table is an error naming the file and line, not a silent pass.

use std::collections::BTreeMap;
use std::path::Path;

/// Each crate's level: a dependency must be on a lower one.
const LEVELS: &[(&str, u32)] = &[
    ("hipscope-isa", 0),
    ("hipscope-mm", 1),
    ("hipscope-sim", 2),
    ("hipscope-race", 3),
    ("hipscope-grade", 4),
    ("hipscope-hip", 4),
    ("hipscope-studies", 5),
    ("hipscope-sweep", 6),
    ("hipscope", 7),
];

/// One manifest as far as this check reads it.
#[derive(Debug, PartialEq)]
struct Manifest {
    name: String,
    /// Dependency names (the `package = "…"` of a renamed one), with their 1-based lines.
    dependencies: Vec<(String, usize)>,
    /// `[workspace] members` (root manifest only).
    members: Vec<String>,
}

/// A `"…"` string value, or an error.
fn string_value(v: &str, at: &str) -> Result<String, String> {
    let v = v.trim();
    v.strip_prefix('"').and_then(|s| s.strip_suffix('"')).map(str::to_string).ok_or_else(|| format!("{at}: expected a \"string\", found `{v}`"))
}

/// The `package = "…"` of a one-line inline table, if it has one.
fn renamed_package(table: &str, at: &str) -> Result<Option<String>, String> {
    let inner = table.trim().strip_prefix('{').and_then(|s| s.strip_suffix('}')).ok_or_else(|| format!("{at}: an inline table must be on one line"))?;
    for entry in inner.split(',') {
        if let Some((k, v)) = entry.split_once('=') {
            if k.trim() == "package" {
                return string_value(v, at).map(Some);
            }
        }
    }
    Ok(None)
}

/// The strings of a `[…]` array written on one line or over several (`members`).
fn array_values(lines: &mut impl Iterator<Item = (usize, String)>, first: &str, at: &str) -> Result<Vec<String>, String> {
    let mut text = first.trim().to_string();
    while !text.ends_with(']') {
        let Some((_, next)) = lines.next() else { return Err(format!("{at}: unterminated array")) };
        text.push_str(without_comment(&next).trim());
    }
    let inner = text.strip_prefix('[').and_then(|s| s.strip_suffix(']')).ok_or_else(|| format!("{at}: expected an array"))?;
    inner.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| string_value(s, at)).collect()
}

/// Whether a table header names a table of normal dependencies (`[dependencies]`,
/// `[target.'cfg(…)'.dependencies]`).
fn is_dependency_table(header: &str) -> bool {
    header == "dependencies" || (header.starts_with("target.") && header.ends_with(".dependencies"))
}

/// `line` without a trailing `# comment` (a `#` inside a string is kept).
fn without_comment(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

fn parse(file: &str, text: &str) -> Result<Manifest, String> {
    let mut m = Manifest { name: String::new(), dependencies: Vec::new(), members: Vec::new() };
    let mut table = String::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.to_string()));
    while let Some((n, raw)) = lines.next() {
        let at = format!("{file}:{n}");
        let line = without_comment(&raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            table = header.trim_end_matches(']').trim().to_string();
            if table.starts_with("dependencies.") || (table.starts_with("target.") && table.contains(".dependencies.")) {
                return Err(format!("{at}: dependency tables `[{table}]` are not read by this check; write the dependency as one line in [dependencies]"));
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            if is_dependency_table(&table) {
                return Err(format!("{at}: not understood in [{table}]: `{line}`"));
            }
            continue;
        };
        let key = key.trim();
        match table.as_str() {
            "package" if key == "name" => m.name = string_value(value, &at)?,
            "workspace" if key == "members" => m.members = array_values(&mut lines, value, &at)?,
            t if is_dependency_table(t) => {
                // `name.workspace = true`, `name = "1"`, `name = { … }`.
                let name = key.strip_suffix(".workspace").unwrap_or(key);
                if name.contains('.') || name.contains('"') {
                    return Err(format!("{at}: dependency key `{key}` not understood"));
                }
                let value = value.trim();
                let package = if value.starts_with('{') {
                    renamed_package(value, &at)?
                } else if value == "true" || value.starts_with('"') {
                    None
                } else {
                    return Err(format!("{at}: dependency value `{value}` not understood"));
                };
                m.dependencies.push((package.unwrap_or_else(|| name.to_string()), n));
            }
            _ => {}
        }
    }
    Ok(m)
}

fn level(name: &str) -> Option<u32> {
    LEVELS.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)
}

/// The wrong edges among `manifests` (file → manifest): a dependency on a workspace crate at
/// the same level or above, and members the order does not place.
fn wrong_edges(manifests: &BTreeMap<String, Manifest>) -> Vec<String> {
    let crates: Vec<&str> = manifests.values().map(|m| m.name.as_str()).collect();
    let mut wrong = Vec::new();
    for (file, m) in manifests {
        let Some(mine) = level(&m.name) else {
            wrong.push(format!("{file}: crate `{}` has no place in the order; add it to LEVELS", m.name));
            continue;
        };
        for (dep, line) in &m.dependencies {
            if !crates.contains(&dep.as_str()) {
                continue;
            }
            match level(dep) {
                Some(theirs) if theirs < mine => {}
                _ => wrong.push(format!("{file}:{line}: {} depends on {dep}, which is not below it", m.name)),
            }
        }
    }
    wrong
}

fn read(root: &Path, file: &str) -> Manifest {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(file, &text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn crates_depend_only_on_lower_crates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let top = read(root, "Cargo.toml");
    assert!(top.members.len() >= 5, "workspace members not found: {:?}", top.members);
    let mut manifests = BTreeMap::new();
    for member in &top.members {
        let file = format!("{member}/Cargo.toml");
        manifests.insert(file.clone(), read(root, &file));
    }
    manifests.insert("Cargo.toml".to_string(), top);
    let wrong = wrong_edges(&manifests);
    assert!(wrong.is_empty(), "wrong edges in the crate graph:\n{}", wrong.join("\n"));
}

#[test]
fn an_upward_or_sideways_edge_is_found() {
    let manifest =
        |name: &str, deps: &[&str]| Manifest { name: name.into(), dependencies: deps.iter().map(|d| (d.to_string(), 1)).collect(), members: Vec::new() };
    let mut m = BTreeMap::new();
    m.insert("isa/Cargo.toml".to_string(), manifest("hipscope-isa", &["object"]));
    m.insert("mm/Cargo.toml".to_string(), manifest("hipscope-mm", &["hipscope-isa"]));
    m.insert("sim/Cargo.toml".to_string(), manifest("hipscope-sim", &["hipscope-mm", "hipscope-grade"]));
    m.insert("grade/Cargo.toml".to_string(), manifest("hipscope-grade", &["hipscope-sim", "hipscope-hip"]));
    m.insert("hip/Cargo.toml".to_string(), manifest("hipscope-hip", &["hipscope-sim"]));
    m.insert("new/Cargo.toml".to_string(), manifest("hipscope-new", &[]));
    let wrong = wrong_edges(&m);
    assert_eq!(wrong.len(), 3, "{wrong:?}");
    assert!(wrong.iter().any(|w| w.contains("hipscope-sim depends on hipscope-grade")), "{wrong:?}");
    assert!(wrong.iter().any(|w| w.contains("hipscope-grade depends on hipscope-hip")), "{wrong:?}");
    assert!(wrong.iter().any(|w| w.contains("crate `hipscope-new` has no place")), "{wrong:?}");
}

#[test]
fn the_reader_reads_this_workspaces_forms_and_refuses_others() {
    let text = "[package]\nname = \"hipscope-x\"\n\n[dependencies]\n# a comment\nhipscope-isa.workspace = true\nserde = \"1\"\nsim = { path = \"../sim\", package = \"hipscope-sim\" } # renamed\n\n[dev-dependencies]\nhipscope-grade.workspace = true\n";
    let m = parse("x/Cargo.toml", text).expect("reads");
    assert_eq!(m.name, "hipscope-x");
    let deps: Vec<&str> = m.dependencies.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(deps, ["hipscope-isa", "serde", "hipscope-sim"], "dev-dependencies are not read");
    let members = parse("Cargo.toml", "[workspace]\nmembers = [\n  \"isa\", # first\n  \"mm\",\n]\n").expect("reads");
    assert_eq!(members.members, ["isa", "mm"]);
    for (bad, why) in [
        ("[dependencies.hipscope-sim]\npath = \"../sim\"\n", "dependency tables"),
        ("[dependencies]\nhipscope-sim = {\n  path = \"../sim\" }\n", "one line"),
        ("[dependencies]\nhipscope-sim\n", "not understood"),
        ("[dependencies]\nhipscope-sim = 3\n", "not understood"),
    ] {
        let e = parse("x/Cargo.toml", bad).expect_err(bad);
        assert!(e.contains(why) && e.starts_with("x/Cargo.toml:"), "{bad:?}: {e}");
    }
}
