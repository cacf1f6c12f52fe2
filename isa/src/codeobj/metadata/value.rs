//! A small untyped tree shared by the YAML and MessagePack decoders, with accessors that report
//! the full key path on error.
//!
//! YAML scalars stay text ([`MValue::Scalar`]) and are converted on access, because YAML has no
//! types of its own beyond what the reader asks for (LLVM's YAML I/O writes `8`, `true`, `'int*'`).

use super::super::error::show;
use super::super::LoadError;

/// Deepest nesting accepted. The real metadata is at most 5 levels deep; the limit keeps
/// hostile input from exhausting the stack (also when the tree is dropped).
pub const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub enum MValue {
    Map(Vec<(String, MValue)>),
    Seq(Vec<MValue>),
    Str(String),
    /// An untyped YAML scalar.
    Scalar(String),
    Int(i128),
    Bool(bool),
    /// Null, floats, binary and anything else the metadata never uses.
    Other,
}

/// `path` + `key`: v3 keys start with a dot already (`.name`), v2 keys do not (`Name`).
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else if key.starts_with('.') {
        format!("{path}{key}")
    } else {
        format!("{path}.{key}")
    }
}

fn err(path: &str, problem: impl Into<String>) -> LoadError {
    LoadError::metadata(path, problem)
}

impl MValue {
    fn kind(&self) -> &'static str {
        match self {
            MValue::Map(_) => "a map",
            MValue::Seq(_) => "a sequence",
            MValue::Str(_) | MValue::Scalar(_) => "a string",
            MValue::Int(_) => "an integer",
            MValue::Bool(_) => "a boolean",
            MValue::Other => "an unsupported value",
        }
    }

    /// Entry `key` of this map; an error if this is not a map.
    pub fn get(&self, key: &str, path: &str) -> Result<Option<&MValue>, LoadError> {
        match self {
            MValue::Map(entries) => Ok(entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)),
            other => Err(err(path, format!("expected a map, found {}", other.kind()))),
        }
    }

    /// Entry `key`, which must be present.
    pub fn req(&self, key: &str, path: &str) -> Result<&MValue, LoadError> {
        self.get(key, path)?.ok_or_else(|| err(&join(path, key), "required key is missing"))
    }

    pub fn as_u64(&self, path: &str) -> Result<u64, LoadError> {
        let n = match self {
            MValue::Int(i) => u64::try_from(*i).ok(),
            MValue::Scalar(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        n.ok_or_else(|| err(path, format!("expected an unsigned integer, found {}", self.describe())))
    }

    pub fn as_bool(&self, path: &str) -> Result<bool, LoadError> {
        match self {
            MValue::Bool(b) => Ok(*b),
            // `.uniform_work_group_size` is an integer 0/1 in LLVM 19 output.
            MValue::Int(0) => Ok(false),
            MValue::Int(1) => Ok(true),
            MValue::Scalar(s) if s == "true" || s == "1" => Ok(true),
            MValue::Scalar(s) if s == "false" || s == "0" => Ok(false),
            _ => Err(err(path, format!("expected a boolean, found {}", self.describe()))),
        }
    }

    pub fn as_str(&self, path: &str) -> Result<&str, LoadError> {
        match self {
            MValue::Str(s) | MValue::Scalar(s) => Ok(s),
            _ => Err(err(path, format!("expected a string, found {}", self.kind()))),
        }
    }

    pub fn as_seq(&self, path: &str) -> Result<&[MValue], LoadError> {
        match self {
            MValue::Seq(items) => Ok(items),
            _ => Err(err(path, format!("expected a sequence, found {}", self.kind()))),
        }
    }

    /// A fixed-length sequence of unsigned integers (`[1, 2]`, `[64, 1, 1]`).
    pub fn as_u64_array<const N: usize>(&self, path: &str) -> Result<[u64; N], LoadError> {
        let items = self.as_seq(path)?;
        if items.len() != N {
            return Err(err(path, format!("expected {N} integers, found {}", items.len())));
        }
        let mut out = [0u64; N];
        for (i, (slot, item)) in out.iter_mut().zip(items).enumerate() {
            *slot = item.as_u64(&format!("{path}[{i}]"))?;
        }
        Ok(out)
    }

    /// Short description of a value for error messages (scalars shown, bounded).
    fn describe(&self) -> String {
        match self {
            MValue::Str(s) | MValue::Scalar(s) => format!("'{}'", show(s)),
            MValue::Int(i) => i.to_string(),
            MValue::Bool(b) => b.to_string(),
            other => other.kind().to_string(),
        }
    }
}

/// Optional typed lookups: `Ok(None)` when the key is absent, an error when it has the wrong type.
pub struct Fields<'a> {
    pub map: &'a MValue,
    pub path: &'a str,
}

impl<'a> Fields<'a> {
    pub fn u64(&self, key: &str) -> Result<Option<u64>, LoadError> {
        self.map.get(key, self.path)?.map(|v| v.as_u64(&join(self.path, key))).transpose()
    }

    pub fn req_u64(&self, key: &str) -> Result<u64, LoadError> {
        self.map.req(key, self.path)?.as_u64(&join(self.path, key))
    }

    pub fn bool(&self, key: &str) -> Result<Option<bool>, LoadError> {
        self.map.get(key, self.path)?.map(|v| v.as_bool(&join(self.path, key))).transpose()
    }

    pub fn string(&self, key: &str) -> Result<Option<String>, LoadError> {
        self.map.get(key, self.path)?.map(|v| v.as_str(&join(self.path, key)).map(str::to_string)).transpose()
    }

    pub fn req_string(&self, key: &str) -> Result<String, LoadError> {
        self.map.req(key, self.path)?.as_str(&join(self.path, key)).map(str::to_string)
    }

    pub fn array<const N: usize>(&self, key: &str) -> Result<Option<[u64; N]>, LoadError> {
        self.map.get(key, self.path)?.map(|v| v.as_u64_array::<N>(&join(self.path, key))).transpose()
    }

    /// A string that must parse with `parse`; unknown spellings are errors naming the key.
    pub fn parsed<T>(&self, key: &str, parse: fn(&str) -> Option<T>) -> Result<Option<T>, LoadError> {
        let Some(s) = self.string(key)? else {
            return Ok(None);
        };
        parse(&s).map(Some).ok_or_else(|| err(&join(self.path, key), format!("unknown value '{}'", show(&s))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: Vec<(&str, MValue)>) -> MValue {
        MValue::Map(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    #[test]
    fn accessors_convert_and_name_the_path() {
        let m = map(vec![
            (".size", MValue::Int(8)),
            ("Size", MValue::Scalar("16".into())),
            (".flag", MValue::Int(1)),
            (".v", MValue::Seq(vec![MValue::Int(1), MValue::Scalar("2".into())])),
        ]);
        let f = Fields { map: &m, path: "amdhsa.kernels[0]" };
        assert_eq!(f.req_u64(".size").unwrap(), 8);
        assert_eq!(f.req_u64("Size").unwrap(), 16);
        assert_eq!(f.bool(".flag").unwrap(), Some(true));
        assert_eq!(f.array::<2>(".v").unwrap(), Some([1, 2]));
        let e = f.req_u64(".name").unwrap_err().to_string();
        assert_eq!(e, "metadata amdhsa.kernels[0].name: required key is missing");
        let e = f.array::<3>(".v").unwrap_err().to_string();
        assert!(e.contains("amdhsa.kernels[0].v"), "{e}");
        assert!(MValue::Int(-1).as_u64("x").is_err());
    }
}
