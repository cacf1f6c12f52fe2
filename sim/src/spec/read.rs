//! Reading a spec: the file (bounded), its `params` with the `--set` overrides, then the whole
//! spec with expressions evaluated, and the checks the text alone allows.

use super::checks;
use super::error::{At, Place, SpecError};
use super::expr::{self, ParamValue};
use super::files;
use super::model::{OrderedMap, Spec};
use std::path::Path;

/// Read and parse a spec file with its declared parameter values.
pub fn load(path: &Path) -> Result<Spec, SpecError> {
    load_with(path, &[])
}

/// Read and parse a spec file, `overrides` (`--set NAME=VALUE`) replacing declared parameters.
pub fn load_with(path: &Path, overrides: &[(String, i128)]) -> Result<Spec, SpecError> {
    let text = files::read_text(path, files::MAX_SPEC_BYTES).map_err(|m| SpecError::whole(path, m))?;
    parse_with(&text, path, overrides)
}

/// Parse spec text; `path` names it in errors and anchors its relative paths.
pub fn parse(text: &str, path: &Path) -> Result<Spec, SpecError> {
    parse_with(text, path, &[])
}

/// Parse spec text with parameter `overrides`. Two passes: the first reads only `params`
/// (everything else is skipped), the second the whole spec with the parameter values known,
/// so expressions anywhere in the file are evaluated where they are read.
pub fn parse_with(text: &str, path: &Path, overrides: &[(String, i128)]) -> Result<Spec, SpecError> {
    #[derive(serde::Deserialize)]
    #[serde(rename = "Run")]
    struct Declared {
        #[serde(default)]
        params: OrderedMap<ParamValue>,
    }
    let declared: Declared = deserialize(text, path)?;
    let values = expr::resolve(&declared.params, overrides).map_err(|(field, m)| match field {
        Some(f) => SpecError::field(path, f, m),
        None => SpecError::whole(path, m),
    })?;
    let mut spec: Spec = expr::with_params(values.clone(), || deserialize(text, path))?;
    spec.param_values = values;
    checks::check_text(At { file: path }, &spec)?;
    Ok(spec)
}

/// RON to `T`; errors give the line and column and, past the top level, the field path.
fn deserialize<T: serde::de::DeserializeOwned>(text: &str, path: &Path) -> Result<T, SpecError> {
    // `implicit_some`: optional fields are written plainly (`gpu: "mi300x"`, not `Some(..)`).
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let spanned = |e: ron::error::SpannedError, field: Option<String>| SpecError {
        file: path.to_path_buf(),
        place: Place::Line(e.span.start.line, e.span.start.col, field),
        message: e.code.to_string(),
    };
    let mut de = ron::Deserializer::from_str_with_options(text, &options).map_err(|e| spanned(e, None))?;
    match serde_path_to_error::deserialize(&mut de) {
        Ok(v) => {
            de.end().map_err(|e| spanned(de.span_error(e), None))?;
            Ok(v)
        }
        Err(e) => {
            let field = (e.path().iter().next().is_some()).then(|| e.path().to_string());
            Err(spanned(de.span_error(e.into_inner()), field))
        }
    }
}
