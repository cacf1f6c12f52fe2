//! The ten independently compiled objects in `shared/external-code-objects` (see its
//! SOURCES.md): five gfx803 code object v2 `ET_DYN`, five gfx942 code object v6 `ET_REL`.
//!
//! Expected values come from LLVM 19 tools run on those files, never from our own output:
//! * kernel names and kernarg layouts: `llvm-readelf-19 --notes FILE` (v2 YAML gives size and
//!   alignment only; the offsets below are laid out by hand from them, AMDGPUUsage "Code
//!   Object V2 Metadata", and must end at `KernargSegmentSize`);
//! * symbols, sections and relocations: `llvm-readelf-19 -S -s -r FILE`;
//! * descriptor fields: `llvm-objdump-19 -D --disassemble-symbols=NAME.kd FILE` (`.amdhsa_*`).

use crate::codeobj_common;

use codeobj_common::{compact, external_objects, read};
use hipscope_isa::codeobj::{self, CodeSymbolKind, ElfType, MetadataFormat, Rsrc3, ValueKind, WorkitemIds};
use hipscope_isa::target::{FeatureSetting, Processor};

/// (kernel, symbol address of the amd_kernel_code_t, KernargSegmentSize,
/// "name:size:align:ValueKind ...").
type KernelFacts = (&'static str, u64, u64, &'static str);

/// (path, kernels) from `llvm-readelf-19 -s --notes`.
const GFX803: &[(&str, &[KernelFacts])] = &[
    ("benchmarks/dnn/layer_benchmarks/relu/kernels.hsaco", &[("ReLUForward", 0x1000, 72,
        "count:4:4:ByValue in:8:8:GlobalBuffer out:8:8:GlobalBuffer -:8:8:HiddenGlobalOffsetX -:8:8:HiddenGlobalOffsetY -:8:8:HiddenGlobalOffsetZ -:8:8:HiddenNone -:8:8:HiddenNone -:8:8:HiddenNone")]),
    ("benchmarks/heteromark/fir/kernels.hsaco", &[("FIR", 0x1000, 96,
        "output:8:8:GlobalBuffer coeff:8:8:GlobalBuffer input:8:8:GlobalBuffer history:8:8:GlobalBuffer num_tap:4:4:ByValue -:8:8:HiddenGlobalOffsetX -:8:8:HiddenGlobalOffsetY -:8:8:HiddenGlobalOffsetZ -:8:8:HiddenNone -:8:8:HiddenNone -:8:8:HiddenNone -:8:8:HiddenMultiGridSyncArg")]),
    ("benchmarks/amdappsdk/matrixtranspose/kernels.hsaco", &[("matrixTranspose", 0x1000, 88,
        "output:8:8:GlobalBuffer input:8:8:GlobalBuffer block:4:4:DynamicSharedPointer wiWidth:4:4:ByValue wiHeight:4:4:ByValue num_of_blocks_x:4:4:ByValue group_x_offset:4:4:ByValue group_y_offset:4:4:ByValue -:8:8:HiddenGlobalOffsetX -:8:8:HiddenGlobalOffsetY -:8:8:HiddenGlobalOffsetZ -:8:8:HiddenNone -:8:8:HiddenNone -:8:8:HiddenNone")]),
    ("driver/memcopy.hsaco", &[("copyKernel", 0x1000, 80,
        "d_in:8:8:GlobalBuffer d_out:8:8:GlobalBuffer N:4:4:ByValue -:8:8:HiddenGlobalOffsetX -:8:8:HiddenGlobalOffsetY -:8:8:HiddenGlobalOffsetZ -:8:8:HiddenNone -:8:8:HiddenNone -:8:8:HiddenNone -:8:8:HiddenMultiGridSyncArg")]),
    ("benchmarks/polybench/atax/kernels.hsaco", &[
        ("atax_kernel1", 0x2000, 80, "A:8:8:GlobalBuffer x:8:8:GlobalBuffer tmp:8:8:GlobalBuffer nx:4:4:ByValue ny:4:4:ByValue -:8:8:HiddenGlobalOffsetX -:8:8:HiddenGlobalOffsetY -:8:8:HiddenGlobalOffsetZ -:8:8:HiddenNone -:8:8:HiddenNone -:8:8:HiddenNone"),
        ("atax_kernel2", 0x2200, 80, "A:8:8:GlobalBuffer y:8:8:GlobalBuffer tmp:8:8:GlobalBuffer nx:4:4:ByValue ny:4:4:ByValue -:8:8:HiddenGlobalOffsetX -:8:8:HiddenGlobalOffsetY -:8:8:HiddenGlobalOffsetZ -:8:8:HiddenNone -:8:8:HiddenNone -:8:8:HiddenNone"),
    ]),
];

/// (path, kernel, .text size, "offset:size:value_kind ...") from `llvm-readelf-19 -S --notes`.
/// In every file the kernel FUNC symbol is at .text+0 and `.rela.rodata` holds one
/// `R_AMDGPU_REL64` at .rodata+0x10 against it with addend 0x10 (`llvm-readelf-19 -s -r`).
const GFX942: &[(&str, &str, u64, u64, &str)] = &[
    ("benchmarks/amdappsdk/vectoradd/kernels.hsaco", "_Z15vectoradd_floatPfPKfS1_ii", 0x4c0, 288,
        "0:8:global_buffer 8:8:global_buffer 16:8:global_buffer 24:4:by_value 28:4:by_value 32:4:hidden_block_count_x 36:4:hidden_block_count_y 40:4:hidden_block_count_z 44:2:hidden_group_size_x 46:2:hidden_group_size_y 48:2:hidden_group_size_z 50:2:hidden_remainder_x 52:2:hidden_remainder_y 54:2:hidden_remainder_z 72:8:hidden_global_offset_x 80:8:hidden_global_offset_y 88:8:hidden_global_offset_z 96:2:hidden_grid_dims"),
    ("benchmarks/heteromark/fir/kernels_gfx942.hsaco", "FIR", 0x500, 296,
        "0:8:global_buffer 8:8:global_buffer 16:8:global_buffer 24:8:global_buffer 32:4:by_value 40:4:hidden_block_count_x 44:4:hidden_block_count_y 48:4:hidden_block_count_z 52:2:hidden_group_size_x 54:2:hidden_group_size_y 56:2:hidden_group_size_z 58:2:hidden_remainder_x 60:2:hidden_remainder_y 62:2:hidden_remainder_z 80:8:hidden_global_offset_x 88:8:hidden_global_offset_y 96:8:hidden_global_offset_z 104:2:hidden_grid_dims"),
    ("benchmarks/dnn/layer_benchmarks/relu/kernels_gfx942.hsaco", "ReLUForward", 0x480, 280,
        "0:4:by_value 8:8:global_buffer 16:8:global_buffer 24:4:hidden_block_count_x 28:4:hidden_block_count_y 32:4:hidden_block_count_z 36:2:hidden_group_size_x 38:2:hidden_group_size_y 40:2:hidden_group_size_z 42:2:hidden_remainder_x 44:2:hidden_remainder_y 46:2:hidden_remainder_z 64:8:hidden_global_offset_x 72:8:hidden_global_offset_y 80:8:hidden_global_offset_z 88:2:hidden_grid_dims"),
    ("benchmarks/amdappsdk/matrixtranspose/kernels_gfx942.hsaco", "matrixTranspose", 0x680, 304,
        "0:8:global_buffer 8:8:global_buffer 16:8:global_buffer 24:4:by_value 28:4:by_value 32:4:by_value 36:4:by_value 40:4:by_value 48:4:hidden_block_count_x 52:4:hidden_block_count_y 56:4:hidden_block_count_z 60:2:hidden_group_size_x 62:2:hidden_group_size_y 64:2:hidden_group_size_z 66:2:hidden_remainder_x 68:2:hidden_remainder_y 70:2:hidden_remainder_z 88:8:hidden_global_offset_x 96:8:hidden_global_offset_y 104:8:hidden_global_offset_z 112:2:hidden_grid_dims 168:4:hidden_dynamic_lds_size"),
    ("benchmarks/shoc/bfs/kernels_gfx942.hsaco", "BFS_kernel_warp", 0x640, 304,
        "0:8:global_buffer 8:8:global_buffer 16:8:global_buffer 24:4:by_value 28:4:by_value 32:4:by_value 36:4:by_value 40:8:global_buffer 48:4:hidden_block_count_x 52:4:hidden_block_count_y 56:4:hidden_block_count_z 60:2:hidden_group_size_x 62:2:hidden_group_size_y 64:2:hidden_group_size_z 66:2:hidden_remainder_x 68:2:hidden_remainder_y 70:2:hidden_remainder_z 88:8:hidden_global_offset_x 96:8:hidden_global_offset_y 104:8:hidden_global_offset_z 112:2:hidden_grid_dims"),
];

/// v2 value-kind spelling → v3+ spelling (AMDGPUUsage lists both).
fn v2_kind(k: &str) -> String {
    ValueKind::from_v2(k).as_str()
}

#[test]
fn gfx803_code_object_v2_kernels_and_kernargs() {
    let Some(dir) = external_objects("gfx803_code_object_v2_kernels_and_kernargs") else {
        return;
    };
    for (path, kernels) in GFX803 {
        let co = codeobj::load(&read(&dir.join(path)), None).unwrap_or_else(|e| panic!("{path}: {e}"));
        // `llvm-readelf-19 -h`: ABI Version 0, Type DYN; NT_AMD_HSA_ISA_VERSION 8.0.3.
        assert_eq!(co.code_object_version, 2, "{path}");
        assert_eq!(co.elf_type, ElfType::Shared, "{path}");
        assert_eq!(co.target.processor, Processor::Gfx803, "{path}");
        assert_eq!(co.metadata.as_ref().map(|m| m.format), Some(MetadataFormat::Yaml));
        assert_eq!(co.kernels.len(), kernels.len(), "{path}");
        for (k, (name, symbol_address, segment, args)) in co.kernels.iter().zip(kernels.iter()) {
            assert_eq!(k.name, *name, "{path}");
            assert_eq!(k.descriptor_address, *symbol_address, "{path} {name}");
            // `llvm-readelf-19 -x .text`: amd_kernel_code_t bytes 16..24 are 00 01 00 00 ... (256).
            assert_eq!(k.entry_address, symbol_address + 256, "{path} {name}");
            assert_eq!(k.wave_size, 64);
            let layout = k.kernarg().unwrap_or_else(|| panic!("{path} {name}: no kernarg layout"));
            assert_eq!(layout.segment_size, *segment, "{path} {name}");
            let expected: Vec<(String, u64, u64, String)> = args
                .split(' ')
                .map(|a| {
                    let f: Vec<&str> = a.split(':').collect();
                    (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap(), v2_kind(f[3]))
                })
                .collect();
            let got: Vec<(String, u64, u64, String)> =
                layout.args.iter().map(|a| (a.name.clone().unwrap_or_else(|| "-".into()), a.size, a.align.unwrap_or(0), a.value_kind.as_str())).collect();
            assert_eq!(got, expected, "{path} {name}");
            // Offsets by hand: each argument at the next multiple of its Align; the last one
            // must end exactly at KernargSegmentSize.
            let mut next = 0u64;
            for a in &layout.args {
                let align = a.align.unwrap();
                next = next.div_ceil(align) * align;
                assert_eq!(a.offset, next, "{path} {name}");
                next += a.size;
            }
            assert_eq!(next, *segment, "{path} {name}");
        }
    }
}

#[test]
fn gfx803_fir_descriptor_fields() {
    let Some(dir) = external_objects("gfx803_fir_descriptor_fields") else {
        return;
    };
    let co = codeobj::load(&read(&dir.join("benchmarks/heteromark/fir/kernels.hsaco")), None).unwrap();
    let k = &co.kernels[0];
    let d = &k.descriptor;
    // `llvm-readelf-19 -x .text` of the amd_kernel_code_t at 0x1000:
    // 0x1030: 8200ac00 90000000 0b000a00 → rsrc1 0x00ac0082, rsrc2 0x90, code_properties 0xa000b;
    // 0x1048: 60000000 → kernarg_segment_byte_size 96; 0x1054: 1600 0a00 → 22 SGPRs, 10 VGPRs
    // (also NumSGPRs / NumVGPRs in `llvm-readelf-19 --notes`).
    assert_eq!(d.compute_pgm_rsrc1.raw, 0x00ac_0082);
    assert_eq!(d.compute_pgm_rsrc2.raw, 0x90);
    assert_eq!(d.kernarg_size, 96);
    let c = k.amd_kernel_code.as_ref().unwrap();
    assert_eq!((c.wavefront_sgpr_count, c.workitem_vgpr_count), (22, 10));
    assert_eq!(c.amd_machine_version, [8, 0, 3]);
    assert!(c.is_ptr64);
    // rsrc2 0x90 = USER_SGPR_COUNT 8 (bits 5:1), WORKGROUP_ID_X (bit 7); code_properties 0xb =
    // private segment buffer, dispatch ptr, kernarg ptr → s[0:3], s[4:5], s[6:7], then s8.
    assert_eq!(d.compute_pgm_rsrc2.user_sgpr_count, 8);
    assert_eq!(k.initial_sgprs.user_enabled, 8);
    assert_eq!(k.initial_sgprs.system[0].first, 8);
    assert_eq!(d.compute_pgm_rsrc2.enable_vgpr_workitem_id, WorkitemIds::X);
    // rsrc1 0x82: VGPR granule field 2 → 12 VGPRs (≥ 10 used); SGPR field 2 → 24 SGPRs (≥ 22).
    assert_eq!((k.registers.vgprs, k.registers.sgprs), (12, 24));
    // Code symbols: `llvm-objdump-19 -d` starts blocks at FIR$local/FIR (0x1000), BB0_2, BB0_3.
    let addrs: Vec<u64> = co.code_symbols.iter().map(|s| s.address).collect();
    assert!(addrs.windows(2).all(|w| w[0] <= w[1]));
    assert!(co.code_symbols.iter().any(|s| s.name == "FIR" && s.kind == CodeSymbolKind::HsaKernel));
    assert!(co.code_symbols.iter().any(|s| s.name == "BB0_2" && s.address == 0x1158));
}

#[test]
fn gfx942_code_object_v6_relocatable() {
    let Some(dir) = external_objects("gfx942_code_object_v6_relocatable") else {
        return;
    };
    for (path, name, text_size, segment, args) in GFX942 {
        let co = codeobj::load(&read(&dir.join(path)), None).unwrap_or_else(|e| panic!("{path}: {e}"));
        // `llvm-readelf-19 -h`: ABI Version 4 (v6), Type REL, Flags 0x54C (gfx942, xnack any, sramecc any).
        assert_eq!(co.code_object_version, 6, "{path}");
        assert_eq!(co.elf_type, ElfType::Relocatable);
        assert_eq!(co.target.processor, Processor::Gfx942);
        assert_eq!((co.target.xnack, co.target.sramecc), (FeatureSetting::Any, FeatureSetting::Any));
        assert_eq!(co.kernels.len(), 1);
        let k = &co.kernels[0];
        assert_eq!(k.name, *name);
        assert_eq!(k.symbol, format!("{name}.kd"));
        // Layout (documented in image.rs): .text at 0, .rodata at the next 64-byte boundary.
        let text = co.text_sections().next().unwrap();
        assert_eq!((text.name.as_str(), text.address, text.size), (".text", 0, *text_size));
        let rodata = text_size.div_ceil(64) * 64;
        assert_eq!(k.descriptor_address, rodata, "{path}");
        // R_AMDGPU_REL64: S (FUNC at .text+0) + A (0x10) - P (.rodata+0x10) = -rodata.
        assert_eq!(k.descriptor.kernel_code_entry_byte_offset, -(rodata as i64), "{path}");
        assert_eq!(k.entry_address, 0, "{path}: `llvm-objdump-19 -d` shows <{name}> at 0");
        assert_eq!(co.code_symbols.first().map(|s| (s.name.as_str(), s.address)), Some((*name, 0)));
        // The file still holds 0 there; only the relocated bytes carry the offset.
        let rodata_section = co.section_at(rodata).unwrap();
        assert_eq!(&rodata_section.file_bytes[16..24], &[0u8; 8]);
        let layout = k.kernarg().unwrap();
        assert_eq!(layout.segment_size, *segment);
        assert_eq!(k.descriptor.kernarg_size, *segment);
        let got: Vec<(u64, u64, String)> = layout.args.iter().map(|a| (a.offset, a.size, a.value_kind.as_str())).collect();
        assert_eq!(compact(&got), *args, "{path}");
        assert_eq!(k.wave_size, 64);
        assert!(k.metadata.as_ref().unwrap().kernarg.args.iter().any(|a| a.value_kind.is_hidden()));
    }
}

#[test]
fn gfx942_descriptors_match_llvm_objdump() {
    let Some(dir) = external_objects("gfx942_descriptors_match_llvm_objdump") else {
        return;
    };
    // From `llvm-objdump-19 -D --disassemble-symbols=NAME.kd`: (path, accum_offset,
    // next_free_vgpr, next_free_sgpr, workgroup_id_y, workitem_id). llvm-objdump prints
    // next_free_sgpr as (GRANULATED_WAVEFRONT_SGPR_COUNT + 1) * 8; vectoradd is missing because
    // llvm-objdump-19 refuses its descriptor ("COMPUTE_PGM_RSRC1_PRIORITY reserved bits set").
    let cases = [
        ("benchmarks/heteromark/fir/kernels_gfx942.hsaco", 12, 16, 24, false, WorkitemIds::X),
        ("benchmarks/dnn/layer_benchmarks/relu/kernels_gfx942.hsaco", 4, 8, 16, false, WorkitemIds::X),
        ("benchmarks/amdappsdk/matrixtranspose/kernels_gfx942.hsaco", 36, 40, 24, true, WorkitemIds::XY),
        ("benchmarks/shoc/bfs/kernels_gfx942.hsaco", 16, 16, 32, false, WorkitemIds::X),
    ];
    for (path, accum, vgprs, sgpr_field_x8, wg_y, items) in cases {
        let co = codeobj::load(&read(&dir.join(path)), None).unwrap();
        let k = &co.kernels[0];
        let d = &k.descriptor;
        assert_eq!(k.registers.accum_offset, Some(accum), "{path}");
        assert_eq!(k.registers.vgprs, vgprs, "{path}");
        assert_eq!((d.compute_pgm_rsrc1.granulated_wavefront_sgpr_count + 1) * 8, sgpr_field_x8, "{path}");
        assert!(matches!(d.compute_pgm_rsrc3, Rsrc3::Gfx90a { tg_split: false, .. }), "{path}");
        // .amdhsa_float_denorm_mode_32/16_64 3, dx10_clamp 1, ieee_mode 1, fp16_overflow 0.
        let r1 = &d.compute_pgm_rsrc1;
        assert_eq!((r1.enable_dx10_clamp, r1.enable_ieee_mode, r1.fp16_ovfl), (Some(true), Some(true), Some(false)));
        assert_eq!(r1.float_denorm_mode_32, codeobj::FloatDenormMode::FlushNone);
        let r2 = &d.compute_pgm_rsrc2;
        assert!(r2.enable_sgpr_workgroup_id_x && !r2.enable_sgpr_workgroup_id_z && !r2.enable_private_segment);
        assert_eq!(r2.enable_sgpr_workgroup_id_y, wg_y, "{path}");
        assert_eq!(r2.enable_vgpr_workitem_id, items, "{path}");
        // .amdhsa_user_sgpr_kernarg_segment_ptr 1, dispatch_ptr 0; gfx942 has architected flat
        // scratch, so no private segment buffer: kernarg pointer in s[0:1].
        let p = &d.kernel_code_properties;
        assert!(p.enable_sgpr_kernarg_segment_ptr && !p.enable_sgpr_dispatch_ptr && !p.enable_sgpr_private_segment_buffer);
        assert_eq!(k.initial_sgprs.user[0].first, 0);
        assert_eq!(d.group_segment_fixed_size, 0);
    }
}

#[test]
fn external_objects_wrapped_in_a_bundle() {
    let Some(dir) = external_objects("external_objects_wrapped_in_a_bundle") else {
        return;
    };
    let a = read(&dir.join("benchmarks/heteromark/fir/kernels.hsaco"));
    let b = read(&dir.join("benchmarks/heteromark/fir/kernels_gfx942.hsaco"));
    // Bundle layout as `clang-offload-bundler` documents it (see bundle.rs).
    let ids = ["host-x86_64-unknown-linux--", "hipv4-amdgcn-amd-amdhsa--gfx803", "hipv4-amdgcn-amd-amdhsa--gfx942"];
    let bodies: [&[u8]; 3] = [&[], &a, &b];
    let mut header = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    header.extend(3u64.to_le_bytes());
    let table_len: usize = ids.iter().map(|i| 24 + i.len()).sum();
    let mut at = (header.len() + table_len) as u64;
    for (id, body) in ids.iter().zip(bodies) {
        header.extend(at.to_le_bytes());
        header.extend((body.len() as u64).to_le_bytes());
        header.extend((id.len() as u64).to_le_bytes());
        header.extend(id.as_bytes());
        at += body.len() as u64;
    }
    for body in bodies {
        header.extend(body);
    }
    let listing = codeobj::list_targets(&header).unwrap();
    assert_eq!(listing.entries.len(), 3);
    let err = codeobj::load(&header, None).unwrap_err().to_string();
    assert!(err.contains("gfx803") && err.contains("gfx942") && !err.contains('\n'), "{err}");
    let co = codeobj::load(&header, Some("gfx942")).unwrap();
    assert_eq!(co.kernels[0].name, "FIR");
    assert_eq!(co.source.entry.as_deref(), Some(ids[2]));
    let co = codeobj::load(&header, Some("fiji")).unwrap();
    assert_eq!(co.target.processor, Processor::Gfx803);
    let err = codeobj::load(&header, Some("gfx1100")).unwrap_err().to_string();
    assert!(err.starts_with("no code object for target gfx1100; available: gfx803, gfx942"), "{err}");
}
