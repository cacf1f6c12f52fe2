//! GPU processors (LLVM `-mcpu` names), their ELF machine numbers and ISA families.
//!
//! Machine numbers are `EF_AMDGPU_MACH_AMDGCN_*` from LLVM 19 AMDGPUUsage ("AMDGPU ELF Header",
//! table "AMDGPU EF_AMDGPU_MACH Values"). The decoder keys its opcode tables by [`Processor`]:
//! each table row carries the set of processors whose feature set makes it valid.

use std::fmt;
use std::str::FromStr;

/// ISA generation, as the decoder and printer see it. Coarser than [`Processor`]: all members of a
/// family share encodings and printing rules; feature differences are handled per processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// GCN3 (gfx8: Fiji, Tonga, Polaris).
    Gfx8,
    /// GCN5 / Vega and CDNA1 (gfx900, gfx906, gfx908).
    Gfx9,
    /// CDNA2 (MI200).
    Gfx90a,
    /// CDNA3 (MI300).
    Gfx940,
    /// RDNA1 and RDNA2.
    Gfx10,
    /// RDNA3 and RDNA3.5.
    Gfx11,
    /// RDNA4.
    Gfx12,
}

impl Family {
    pub const ALL: [Family; 7] = [Family::Gfx8, Family::Gfx9, Family::Gfx90a, Family::Gfx940, Family::Gfx10, Family::Gfx11, Family::Gfx12];

    pub fn name(self) -> &'static str {
        match self {
            Family::Gfx8 => "gfx8",
            Family::Gfx9 => "gfx9",
            Family::Gfx90a => "gfx90a",
            Family::Gfx940 => "gfx940",
            Family::Gfx10 => "gfx10",
            Family::Gfx11 => "gfx11",
            Family::Gfx12 => "gfx12",
        }
    }

    /// GFX9 and its CDNA descendants share the GFX9 encodings.
    pub fn is_gfx9_like(self) -> bool {
        matches!(self, Family::Gfx9 | Family::Gfx90a | Family::Gfx940)
    }

    /// RDNA families (wave32-capable, GL0/GL1 caches, WGP mode).
    pub fn is_rdna(self) -> bool {
        matches!(self, Family::Gfx10 | Family::Gfx11 | Family::Gfx12)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! processors {
    ($( $variant:ident = $name:literal, $mach:literal, $family:ident; )*) => {
        /// A processor the decoder knows. The discriminant is its bit in a [`ProcessorSet`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Processor { $( $variant, )* }

        impl Processor {
            pub const ALL: &'static [Processor] = &[ $( Processor::$variant, )* ];

            /// LLVM `-mcpu` name.
            pub fn name(self) -> &'static str {
                match self { $( Processor::$variant => $name, )* }
            }

            /// `EF_AMDGPU_MACH` value in the ELF header's `e_flags`.
            pub fn elf_mach(self) -> u32 {
                match self { $( Processor::$variant => $mach, )* }
            }

            pub fn family(self) -> Family {
                match self { $( Processor::$variant => Family::$family, )* }
            }
        }
    };
}

processors! {
    Gfx802 = "gfx802", 0x029, Gfx8;
    Gfx803 = "gfx803", 0x02a, Gfx8;
    Gfx810 = "gfx810", 0x02b, Gfx8;
    Gfx900 = "gfx900", 0x02c, Gfx9;
    Gfx906 = "gfx906", 0x02f, Gfx9;
    Gfx908 = "gfx908", 0x030, Gfx9;
    Gfx90a = "gfx90a", 0x03f, Gfx90a;
    Gfx940 = "gfx940", 0x040, Gfx940;
    Gfx942 = "gfx942", 0x04c, Gfx940;
    Gfx1010 = "gfx1010", 0x033, Gfx10;
    Gfx1011 = "gfx1011", 0x034, Gfx10;
    Gfx1012 = "gfx1012", 0x035, Gfx10;
    Gfx1030 = "gfx1030", 0x036, Gfx10;
    Gfx1100 = "gfx1100", 0x041, Gfx11;
    Gfx1150 = "gfx1150", 0x043, Gfx11;
    Gfx1200 = "gfx1200", 0x048, Gfx12;
    Gfx1201 = "gfx1201", 0x04e, Gfx12;
    // Known to LLVM 22 only (machine numbers from LLVM 22.1.8 AMDGPUUsage / BinaryFormat/ELF.h).
    // gfx950 (CDNA4) extends gfx942's ISA (FeatureGFX940Insts is among its features), so it
    // shares gfx940's family; gfx1250/gfx1251 are GFX12 (FeatureGFX12 plus GFX1250Insts).
    Gfx950 = "gfx950", 0x04f, Gfx940;
    Gfx1250 = "gfx1250", 0x049, Gfx12;
    Gfx1251 = "gfx1251", 0x05a, Gfx12;
}

/// Older marketing / LLVM alias names accepted on the command line and in corpus RUN lines.
/// Each alias has the same instruction set as the processor it maps to (LLVM GCNProcessors.td).
const ALIASES: &[(&str, Processor)] = &[
    ("tonga", Processor::Gfx802),
    ("iceland", Processor::Gfx802),
    ("fiji", Processor::Gfx803),
    ("polaris10", Processor::Gfx803),
    ("polaris11", Processor::Gfx803),
    ("stoney", Processor::Gfx810),
    ("gfx941", Processor::Gfx942),
    ("gfx1031", Processor::Gfx1030),
    ("gfx1032", Processor::Gfx1030),
    ("gfx1033", Processor::Gfx1030),
    ("gfx1034", Processor::Gfx1030),
    ("gfx1035", Processor::Gfx1030),
    ("gfx1036", Processor::Gfx1030),
    ("gfx1101", Processor::Gfx1100),
    ("gfx1102", Processor::Gfx1100),
    ("gfx1151", Processor::Gfx1150),
    ("gfx1152", Processor::Gfx1150),
    ("gfx1153", Processor::Gfx1150),
    // Generic processors (AMDGPUUsage "Generic Processor Versioning"): code for one runs on
    // every member, so its ISA is within each member's; decoding as the first member
    // accepts every instruction the generic target may hold.
    ("gfx9-generic", Processor::Gfx900),
    ("gfx9-4-generic", Processor::Gfx942),
    ("gfx10-1-generic", Processor::Gfx1010),
    ("gfx10-3-generic", Processor::Gfx1030),
    ("gfx11-generic", Processor::Gfx1100),
    ("gfx12-generic", Processor::Gfx1200),
];

/// `EF_AMDGPU_MACH` values of processors that share an instruction set with one we model
/// (AMDGPUUsage "AMDGPU EF_AMDGPU_MACH Values"); their code objects load as that processor.
const ALIAS_MACHS: &[(u32, Processor)] = &[
    (0x04b, Processor::Gfx942),  // gfx941
    (0x037, Processor::Gfx1030), // gfx1031
    (0x038, Processor::Gfx1030), // gfx1032
    (0x039, Processor::Gfx1030), // gfx1033
    (0x03e, Processor::Gfx1030), // gfx1034
    (0x03d, Processor::Gfx1030), // gfx1035
    (0x045, Processor::Gfx1030), // gfx1036
    (0x046, Processor::Gfx1100), // gfx1101
    (0x047, Processor::Gfx1100), // gfx1102
    (0x04a, Processor::Gfx1150), // gfx1151
    (0x055, Processor::Gfx1150), // gfx1152
    (0x058, Processor::Gfx1150), // gfx1153
    (0x051, Processor::Gfx900),  // gfx9-generic
    (0x05f, Processor::Gfx942),  // gfx9-4-generic
    (0x052, Processor::Gfx1010), // gfx10-1-generic
    (0x053, Processor::Gfx1030), // gfx10-3-generic
    (0x054, Processor::Gfx1100), // gfx11-generic
    (0x059, Processor::Gfx1200), // gfx12-generic
];

impl Processor {
    /// Whether the processor has the XNACK and the SRAMECC target features (AMDGPUUsage,
    /// "AMDGPU Processors" table, column "Target Features Supported").
    pub fn target_features(self) -> (bool, bool) {
        match self {
            Processor::Gfx810 | Processor::Gfx900 | Processor::Gfx1010 | Processor::Gfx1011 | Processor::Gfx1012 => (true, false),
            Processor::Gfx906 | Processor::Gfx908 | Processor::Gfx90a | Processor::Gfx940 | Processor::Gfx942 | Processor::Gfx950 => (true, true),
            _ => (false, false),
        }
    }

    /// Look a processor up by its `EF_AMDGPU_MACH` value.
    pub fn from_elf_mach(mach: u32) -> Option<Processor> {
        Processor::ALL.iter().copied().find(|p| p.elf_mach() == mach).or_else(|| ALIAS_MACHS.iter().find(|(m, _)| *m == mach).map(|(_, p)| *p))
    }

    /// Wave size a kernel gets when its descriptor does not ask for wave32 (GFX10+ default is
    /// wave32 in the compiler, but the hardware default and the descriptor bit decide).
    pub fn supports_wave32(self) -> bool {
        self.family().is_rdna()
    }

    /// True for targets with architected flat scratch (no private-segment-buffer user SGPRs):
    /// gfx940/gfx942, GFX11, GFX12 (AMDGPUUsage, "Architected flat scratch").
    pub fn has_architected_flat_scratch(self) -> bool {
        matches!(self.family(), Family::Gfx940 | Family::Gfx11 | Family::Gfx12)
    }

    /// Work-item ids packed into v0 (10 bits each) instead of v0/v1/v2
    /// (AMDGPUUsage, "Initial Kernel Execution State"; feature `PackedTID`).
    pub fn has_packed_workitem_ids(self) -> bool {
        matches!(self.family(), Family::Gfx90a | Family::Gfx940 | Family::Gfx11 | Family::Gfx12)
    }
}

impl fmt::Display for Processor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown processor name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown AMDGPU processor '{0}' (known: {list})", list = known_names())]
pub struct UnknownProcessor(pub String);

fn known_names() -> String {
    Processor::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

impl FromStr for Processor {
    type Err = UnknownProcessor;

    /// Accepts `gfx942`, `gfx942:sramecc+:xnack-` (target-id features are ignored here) and aliases.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let base = s.split(':').next().unwrap_or(s).trim().to_ascii_lowercase();
        Processor::ALL
            .iter()
            .copied()
            .find(|p| p.name() == base)
            .or_else(|| ALIASES.iter().find(|(a, _)| *a == base).map(|(_, p)| *p))
            .ok_or_else(|| UnknownProcessor(s.to_string()))
    }
}

/// A set of processors, one bit per [`Processor`] discriminant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ProcessorSet(pub u32);

impl ProcessorSet {
    pub const fn contains(self, p: Processor) -> bool {
        self.0 & (1 << p as u32) != 0
    }

    pub fn insert(&mut self, p: Processor) {
        self.0 |= 1 << p as u32;
    }
}

/// XNACK / SRAMECC target-id feature setting, from `e_flags` (AMDGPUUsage, "AMDGPU ELF Header").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeatureSetting {
    Unsupported,
    Any,
    Off,
    On,
}

impl FeatureSetting {
    /// Decode the two-bit field value (0 unsupported, 1 any, 2 off, 3 on).
    pub fn from_bits(bits: u32) -> FeatureSetting {
        match bits & 3 {
            0 => FeatureSetting::Unsupported,
            1 => FeatureSetting::Any,
            2 => FeatureSetting::Off,
            _ => FeatureSetting::On,
        }
    }

    /// Suffix used in target-id strings (`gfx90a:xnack+`), if any.
    pub fn suffix(self, name: &str) -> Option<String> {
        match self {
            FeatureSetting::On => Some(format!("{name}+")),
            FeatureSetting::Off => Some(format!("{name}-")),
            _ => None,
        }
    }
}

/// A full target: processor plus the xnack/sramecc settings an object was built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub processor: Processor,
    pub xnack: FeatureSetting,
    pub sramecc: FeatureSetting,
}

impl Target {
    pub fn new(processor: Processor) -> Target {
        Target { processor, xnack: FeatureSetting::Unsupported, sramecc: FeatureSetting::Unsupported }
    }

    /// Target-id string as clang writes it (`gfx90a:sramecc+:xnack-`; features in alphabetical order).
    pub fn target_id(&self) -> String {
        let mut s = self.processor.name().to_string();
        for f in [self.sramecc.suffix("sramecc"), self.xnack.suffix("xnack")].into_iter().flatten() {
            s.push(':');
            s.push_str(&f);
        }
        s
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.target_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mach_values_match_amdgpuusage() {
        // Values from LLVM 19 AMDGPUUsage "AMDGPU EF_AMDGPU_MACH Values".
        assert_eq!(Processor::from_elf_mach(0x2a), Some(Processor::Gfx803));
        assert_eq!(Processor::from_elf_mach(0x4c), Some(Processor::Gfx942));
        assert_eq!(Processor::from_elf_mach(0x41), Some(Processor::Gfx1100));
        assert_eq!(Processor::from_elf_mach(0x4e), Some(Processor::Gfx1201));
        assert_eq!(Processor::from_elf_mach(0x46), Some(Processor::Gfx1100)); // gfx1101
        assert_eq!(Processor::from_elf_mach(0x01), None);
    }

    #[test]
    fn names_and_aliases_parse() {
        assert_eq!("gfx90a:xnack-".parse::<Processor>(), Ok(Processor::Gfx90a));
        assert_eq!("tonga".parse::<Processor>(), Ok(Processor::Gfx802));
        assert_eq!("GFX1100".parse::<Processor>(), Ok(Processor::Gfx1100));
        assert!("gfx7000".parse::<Processor>().is_err());
    }

    #[test]
    fn target_id_orders_features_like_clang() {
        let t = Target { processor: Processor::Gfx90a, xnack: FeatureSetting::Off, sramecc: FeatureSetting::On };
        assert_eq!(t.target_id(), "gfx90a:sramecc+:xnack-");
    }
}
