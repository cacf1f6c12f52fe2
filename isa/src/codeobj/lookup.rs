//! Finding a kernel by the name a user writes: the name in the code object (metadata `.name`,
//! mangled for C++ kernels), its descriptor symbol, or the C++ source name that the mangled
//! name demangles to.
//!
//! HIP kernels that are not `extern "C"` carry Itanium-mangled names (`_Z4vaddPfS_S_i`), which
//! nobody types. A query is tried against ever looser spellings of each kernel's demangled
//! name, and the first spelling that matches anything decides:
//!
//! 1. the code-object name or descriptor symbol, exactly;
//! 2. the full signature, `vadd(float*, float*, float*, int)` (spaces ignored);
//! 3. the qualified name with template arguments, `ns::scale<float>`;
//! 4. that name without template arguments (`ns::scale`), without namespaces (`scale<float>`)
//!    or without both (`scale`).
//!
//! One match is the kernel; several at the same step are ambiguous and listed (an overloaded
//! `scale` needs its signature).

use super::{CodeObject, Kernel};
use cpp_demangle::{DemangleOptions, Symbol};
use std::fmt;

/// Longest name handed to the demangler: real kernel names are far shorter, and the bound
/// keeps a hostile symbol table from costing time.
const MAX_MANGLED: usize = 4096;

/// Why [`CodeObject::find_kernel`] found no single kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelLookupError {
    /// No kernel has the name in any spelling; `kernels` lists every kernel.
    NotFound { query: String, kernels: Vec<Candidate> },
    /// Several kernels match equally well.
    Ambiguous { query: String, candidates: Vec<Candidate> },
}

/// A kernel as listed in a lookup error: its code-object name and what that demangles to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub demangled: Option<String>,
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.demangled {
            Some(d) => write!(f, "{} ({d})", self.name),
            None => f.write_str(&self.name),
        }
    }
}

fn list(c: &[Candidate]) -> String {
    if c.is_empty() {
        return "none".into();
    }
    c.iter().map(Candidate::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for KernelLookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelLookupError::NotFound { query, kernels } => write!(f, "no kernel named '{query}' (kernels: {})", list(kernels)),
            KernelLookupError::Ambiguous { query, candidates } => {
                write!(f, "kernel name '{query}' is ambiguous: {}; give the mangled name or the full signature", list(candidates))
            }
        }
    }
}

impl std::error::Error for KernelLookupError {}

/// The C++ source name of an Itanium-mangled `name` (`vadd(float*, float*, float*, int)`),
/// without the return type that function templates encode; `None` when `name` is not mangled.
pub fn demangle(name: &str) -> Option<String> {
    demangle_with(name, DemangleOptions::new().no_return_type())
}

fn demangle_with(name: &str, options: DemangleOptions) -> Option<String> {
    if !name.starts_with("_Z") || name.len() > MAX_MANGLED {
        return None;
    }
    Symbol::new(name.as_bytes()).ok()?.demangle_with_options(&options).ok()
}

/// The spellings of one kernel's demangled name, whitespace removed, by step (2 to 4 above).
struct Spellings {
    signature: String,
    qualified: String,
    short: [String; 3],
}

impl Spellings {
    fn of(k: &Kernel) -> Option<Spellings> {
        let signature = compact(&demangle(&k.name)?);
        let qualified = compact(&demangle_with(&k.name, DemangleOptions::new().no_return_type().no_params())?);
        let untemplated = without_templates(&qualified);
        let short = [untemplated.clone(), last_component(&qualified).to_string(), last_component(&untemplated).to_string()];
        Some(Spellings { signature, qualified, short })
    }

    fn matches(&self, step: usize, q: &str) -> bool {
        match step {
            0 => self.signature == q,
            1 => self.qualified == q,
            _ => self.short.iter().any(|s| s == q),
        }
    }
}

fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `ns<int>::scale<float>` → `ns::scale`.
fn without_templates(s: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The part after the last `::` outside template arguments.
fn last_component(s: &str) -> &str {
    let mut depth = 0usize;
    let mut start = 0;
    let b = s.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth = depth.saturating_sub(1),
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => start = i + 2,
            _ => {}
        }
    }
    s.get(start..).unwrap_or(s)
}

impl Kernel {
    /// The C++ source name this kernel's mangled name stands for, if it is mangled.
    pub fn demangled(&self) -> Option<String> {
        demangle(&self.name)
    }

    fn candidate(&self) -> Candidate {
        Candidate { name: self.name.clone(), demangled: self.demangled() }
    }
}

impl CodeObject {
    /// The kernel a user means by `query` (see the module documentation for the spellings).
    pub fn find_kernel(&self, query: &str) -> Result<&Kernel, KernelLookupError> {
        if let Some(k) = self.kernels.iter().find(|k| k.name == query || k.symbol == query) {
            return Ok(k);
        }
        let spellings: Vec<(&Kernel, Spellings)> = self.kernels.iter().filter_map(|k| Some((k, Spellings::of(k)?))).collect();
        let q = compact(query);
        for step in 0..3 {
            let hits: Vec<&Kernel> = spellings.iter().filter(|(_, s)| s.matches(step, &q)).map(|(k, _)| *k).collect();
            match hits[..] {
                [] => continue,
                [k] => return Ok(k),
                _ => return Err(KernelLookupError::Ambiguous { query: query.to_string(), candidates: hits.iter().map(|k| k.candidate()).collect() }),
            }
        }
        Err(KernelLookupError::NotFound { query: query.to_string(), kernels: self.kernels.iter().map(Kernel::candidate).collect() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Mangled names and their demangling as `llvm-cxxfilt-19` prints them (return types of
    // templates dropped).
    #[test]
    fn demangles_kernel_names() {
        assert_eq!(demangle("_Z4vaddPfS_S_i").as_deref(), Some("vadd(float*, float*, float*, int)"));
        assert_eq!(demangle("_Z15vectoradd_floatPfPKfS1_ii").as_deref(), Some("vectoradd_float(float*, float const*, float const*, int, int)"));
        assert_eq!(demangle("_ZN4demo5scaleIfEEvPT_S1_j").as_deref(), Some("demo::scale<float>(float*, float, unsigned int)"));
        assert_eq!(demangle("vadd"), None, "extern \"C\" names are not mangled");
        assert_eq!(demangle("_Znot a symbol"), None);
    }

    #[test]
    fn name_parts() {
        assert_eq!(without_templates("ns<int>::scale<float>"), "ns::scale");
        assert_eq!(last_component("ns::scale<a::b>"), "scale<a::b>");
        assert_eq!(last_component("scale"), "scale");
    }
}
