//! Code object v2 metadata keys (AMDGPUUsage "Code Object V2 Metadata": the metadata, kernel,
//! kernel attribute, kernel argument and kernel code properties map tables).
//!
//! v2 argument maps carry `Size` and `Align` but no offset: arguments are laid out in order,
//! each at the next multiple of its alignment (checked against `KernargSegmentSize` by the
//! kernel assembly in `kernels.rs`).

use super::v3::strings;
use super::value::{join, Fields, MValue};
use super::{Access, AddressSpace, KernargLayout, KernelArg, KernelMetadata, Metadata, MetadataFormat, ValueKind};
use crate::codeobj::LoadError;

pub fn metadata(root: &MValue) -> Result<Metadata, LoadError> {
    let top = Fields { map: root, path: "" };
    let kernels = match root.get("Kernels", "")? {
        Some(list) => list.as_seq("Kernels")?,
        None => &[],
    };
    let kernels = kernels.iter().enumerate().map(|(i, k)| kernel(k, &format!("Kernels[{i}]"))).collect::<Result<Vec<_>, _>>()?;
    Ok(Metadata {
        format: MetadataFormat::Yaml,
        version: top.array::<2>("Version")?,
        target: None,
        printf: strings(root.get("Printf", "")?, "Printf")?,
        kernels,
    })
}

fn kernel(map: &MValue, path: &str) -> Result<KernelMetadata, LoadError> {
    let f = Fields { map, path };
    let props_path = join(path, "CodeProps");
    let props = Fields { map: map.req("CodeProps", path)?, path: &props_path };
    let attrs_path = join(path, "Attrs");
    let empty = MValue::Map(Vec::new());
    let attrs = Fields { map: map.get("Attrs", path)?.unwrap_or(&empty), path: &attrs_path };
    let args = args(map.get("Args", path)?, &join(path, "Args"))?;
    Ok(KernelMetadata {
        name: f.req_string("Name")?,
        symbol: f.req_string("SymbolName")?,
        language: f.string("Language")?,
        language_version: f.array::<2>("LanguageVersion")?,
        kernarg: KernargLayout {
            segment_size: props.req_u64("KernargSegmentSize")?,
            segment_align: props.req_u64("KernargSegmentAlign")?,
            offsets_computed: true,
            args,
        },
        group_segment_fixed_size: props.req_u64("GroupSegmentFixedSize")?,
        private_segment_fixed_size: props.req_u64("PrivateSegmentFixedSize")?,
        wavefront_size: props.req_u64("WavefrontSize")?,
        sgpr_count: props.req_u64("NumSGPRs")?,
        vgpr_count: props.req_u64("NumVGPRs")?,
        agpr_count: None,
        max_flat_workgroup_size: props.req_u64("MaxFlatWorkGroupSize")?,
        sgpr_spill_count: props.u64("NumSpilledSGPRs")?,
        vgpr_spill_count: props.u64("NumSpilledVGPRs")?,
        kind: None,
        reqd_workgroup_size: attrs.array::<3>("ReqdWorkGroupSize")?,
        workgroup_size_hint: attrs.array::<3>("WorkGroupSizeHint")?,
        vec_type_hint: attrs.string("VecTypeHint")?,
        device_enqueue_symbol: attrs.string("RuntimeHandle")?,
        uses_dynamic_stack: None,
        workgroup_processor_mode: None,
        uniform_work_group_size: None,
    })
}

fn args(list: Option<&MValue>, path: &str) -> Result<Vec<KernelArg>, LoadError> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    let mut next = 0u64;
    let mut out = Vec::new();
    for (i, a) in list.as_seq(path)?.iter().enumerate() {
        let arg = arg(a, &format!("{path}[{i}]"), next)?;
        next = arg.offset.checked_add(arg.size).ok_or_else(|| overflow(path, i))?;
        out.push(arg);
    }
    Ok(out)
}

fn overflow(path: &str, i: usize) -> LoadError {
    LoadError::metadata(format!("{path}[{i}]"), "argument offset overflows")
}

fn arg(map: &MValue, path: &str, next: u64) -> Result<KernelArg, LoadError> {
    let f = Fields { map, path };
    let align = f.req_u64("Align")?;
    if !align.is_power_of_two() {
        return Err(LoadError::metadata(join(path, "Align"), format!("{align} is not a power of two")));
    }
    let offset = next.checked_next_multiple_of(align).ok_or_else(|| LoadError::metadata(path, "offset overflows"))?;
    Ok(KernelArg {
        name: f.string("Name")?,
        type_name: f.string("TypeName")?,
        offset,
        size: f.req_u64("Size")?,
        align: Some(align),
        value_kind: ValueKind::from_v2(&f.req_string("ValueKind")?),
        address_space: f.parsed("AddrSpaceQual", AddressSpace::parse)?,
        access: f.parsed("AccQual", Access::parse)?,
        actual_access: f.parsed("ActualAccQual", Access::parse)?,
        pointee_align: f.u64("PointeeAlign")?,
        is_const: f.bool("IsConst")?.unwrap_or(false),
        is_restrict: f.bool("IsRestrict")?.unwrap_or(false),
        is_volatile: f.bool("IsVolatile")?.unwrap_or(false),
        is_pipe: f.bool("IsPipe")?.unwrap_or(false),
    })
}
