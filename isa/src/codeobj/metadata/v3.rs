//! Code object v3+ metadata keys (AMDGPUUsage "Code Object V3 Metadata", "... V4 Metadata Map
//! Changes", "... V5 ... Additions").

use super::value::{join, Fields, MValue};
use super::{Access, AddressSpace, KernargLayout, KernelArg, KernelMetadata, Metadata, MetadataFormat, ValueKind};
use crate::codeobj::LoadError;

pub fn metadata(root: &MValue) -> Result<Metadata, LoadError> {
    let top = Fields { map: root, path: "" };
    let kernels = match root.get("amdhsa.kernels", "")? {
        Some(list) => list.as_seq("amdhsa.kernels")?,
        None => return Err(LoadError::metadata("amdhsa.kernels", "required key is missing")),
    };
    let kernels = kernels.iter().enumerate().map(|(i, k)| kernel(k, &format!("amdhsa.kernels[{i}]"))).collect::<Result<Vec<_>, _>>()?;
    Ok(Metadata {
        format: MetadataFormat::MsgPack,
        version: top.array::<2>("amdhsa.version")?,
        target: top.string("amdhsa.target")?,
        printf: strings(root.get("amdhsa.printf", "")?, "amdhsa.printf")?,
        kernels,
    })
}

/// An optional sequence of strings.
pub(super) fn strings(v: Option<&MValue>, path: &str) -> Result<Vec<String>, LoadError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    v.as_seq(path)?.iter().enumerate().map(|(i, s)| s.as_str(&format!("{path}[{i}]")).map(str::to_string)).collect()
}

fn kernel(map: &MValue, path: &str) -> Result<KernelMetadata, LoadError> {
    let f = Fields { map, path };
    let args_path = join(path, ".args");
    let args = match map.get(".args", path)? {
        Some(list) => list.as_seq(&args_path)?.iter().enumerate().map(|(i, a)| arg(a, &format!("{args_path}[{i}]"))).collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    Ok(KernelMetadata {
        name: f.req_string(".name")?,
        symbol: f.req_string(".symbol")?,
        language: f.string(".language")?,
        language_version: f.array::<2>(".language_version")?,
        kernarg: KernargLayout {
            segment_size: f.req_u64(".kernarg_segment_size")?,
            segment_align: f.req_u64(".kernarg_segment_align")?,
            offsets_computed: false,
            args,
        },
        group_segment_fixed_size: f.req_u64(".group_segment_fixed_size")?,
        private_segment_fixed_size: f.req_u64(".private_segment_fixed_size")?,
        wavefront_size: f.req_u64(".wavefront_size")?,
        sgpr_count: f.req_u64(".sgpr_count")?,
        vgpr_count: f.req_u64(".vgpr_count")?,
        agpr_count: f.u64(".agpr_count")?,
        max_flat_workgroup_size: f.req_u64(".max_flat_workgroup_size")?,
        sgpr_spill_count: f.u64(".sgpr_spill_count")?,
        vgpr_spill_count: f.u64(".vgpr_spill_count")?,
        kind: f.string(".kind")?,
        reqd_workgroup_size: f.array::<3>(".reqd_workgroup_size")?,
        workgroup_size_hint: f.array::<3>(".workgroup_size_hint")?,
        vec_type_hint: f.string(".vec_type_hint")?,
        device_enqueue_symbol: f.string(".device_enqueue_symbol")?,
        uses_dynamic_stack: f.bool(".uses_dynamic_stack")?,
        workgroup_processor_mode: f.bool(".workgroup_processor_mode")?,
        uniform_work_group_size: f.bool(".uniform_work_group_size")?,
    })
}

fn arg(map: &MValue, path: &str) -> Result<KernelArg, LoadError> {
    let f = Fields { map, path };
    Ok(KernelArg {
        name: f.string(".name")?,
        type_name: f.string(".type_name")?,
        offset: f.req_u64(".offset")?,
        size: f.req_u64(".size")?,
        align: None,
        value_kind: ValueKind::from_v3(&f.req_string(".value_kind")?),
        address_space: f.parsed(".address_space", AddressSpace::parse)?,
        access: f.parsed(".access", Access::parse)?,
        actual_access: f.parsed(".actual_access", Access::parse)?,
        pointee_align: f.u64(".pointee_align")?,
        is_const: f.bool(".is_const")?.unwrap_or(false),
        is_restrict: f.bool(".is_restrict")?.unwrap_or(false),
        is_volatile: f.bool(".is_volatile")?.unwrap_or(false),
        is_pipe: f.bool(".is_pipe")?.unwrap_or(false),
    })
}
