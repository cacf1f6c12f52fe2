//! `NT_AMDGPU_METADATA` descriptor (MessagePack, AMDGPUUsage "Code Object V3 and Above Note
//! Records") → [`MValue`].

use super::value::{MValue, MAX_DEPTH};
use crate::codeobj::LoadError;

/// Decode the MessagePack map. rmpv counts a container and its body as two levels, hence the
/// doubled limit; it also never preallocates from declared lengths.
pub fn decode(desc: &[u8]) -> Result<MValue, LoadError> {
    let mut rd = desc;
    let value = rmpv::decode::read_value_with_max_depth(&mut rd, 2 * MAX_DEPTH)
        .map_err(|e| LoadError::metadata("NT_AMDGPU_METADATA", format!("bad MessagePack: {e}")))?;
    Ok(convert(value))
}

fn convert(v: rmpv::Value) -> MValue {
    use rmpv::Value as V;
    match v {
        V::Boolean(b) => MValue::Bool(b),
        V::Integer(i) => match (i.as_u64(), i.as_i64()) {
            (Some(u), _) => MValue::Int(i128::from(u)),
            (None, Some(s)) => MValue::Int(i128::from(s)),
            _ => MValue::Other,
        },
        V::String(s) => match s.into_str() {
            Some(s) => MValue::Str(s),
            None => MValue::Other,
        },
        V::Array(items) => MValue::Seq(items.into_iter().map(convert).collect()),
        // Keys that are not strings cannot match any documented key; they are dropped.
        V::Map(entries) => MValue::Map(entries.into_iter().filter_map(|(k, v)| k.as_str().map(str::to_string).map(|k| (k, convert(v)))).collect()),
        _ => MValue::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_a_small_map_and_rejects_garbage() {
        // {"a": [1, true], "b": "x"} encoded by hand.
        let bytes = [0x82, 0xa1, b'a', 0x92, 0x01, 0xc3, 0xa1, b'b', 0xa1, b'x'];
        let v = decode(&bytes).unwrap();
        assert_eq!(v, MValue::Map(vec![("a".into(), MValue::Seq(vec![MValue::Int(1), MValue::Bool(true)])), ("b".into(), MValue::Str("x".into())),]));
        assert!(decode(&[0x82, 0xa1]).is_err());
        let deep = vec![0x91u8; 10_000];
        assert!(decode(&deep).is_err());
    }
}
