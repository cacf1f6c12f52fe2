//! How many bytes an in-memory module image occupies. `hipModuleLoadData` gets a pointer and
//! no size, so the size comes from the image's own headers, for each kind of image ROCm's
//! runtime accepts there: an ELF code object, a clang offload bundle, or a compressed one
//! (`CCOB`). rocBLAS's Tensile reads its kernel files (`TensileLibrary_*.co`, zstd `CCOB` in
//! ROCm 7.2's Debian build) into memory and loads them this way.
//!
//! The layouts (all little-endian):
//! * ELF64: `e_shoff` (u64 at 0x28), `e_shentsize` (u16 at 0x3a), `e_shnum` (u16 at 0x3c); the
//!   section header table is the last thing in LLVM's output, so it ends the image.
//! * offload bundle: the 24-byte magic `__CLANG_OFFLOAD_BUNDLE__`, a u64 entry count, then per
//!   entry u64 offset, u64 size, u64 id length and the id; the image ends where the entry that
//!   ends last ends (see `isa/src/codeobj/bundle.rs`).
//! * compressed bundle: `CCOB`, u16 version, u16 method, then (v2) a u32 or (v3) a u64 total
//!   size of the whole compressed bundle (see `isa/src/codeobj/compressed.rs`). Version 1
//!   records no total size.

/// An entry table longer than this is taken for garbage (bundles hold one entry per target).
const MAX_ENTRIES: u64 = 4096;
/// An entry id longer than this is taken for garbage (ids are target triples).
const MAX_ID_BYTES: u64 = 4096;

const ELF_MAGIC: &[u8] = b"\x7fELF";
const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
const CCOB_MAGIC: &[u8] = b"CCOB";

/// Reads `len` bytes at `offset` of the image (`None`: not there).
pub(crate) type ReadAt<'a> = &'a dyn Fn(usize, usize) -> Option<Vec<u8>>;

/// The image's size in bytes, from its headers (read through `at`), or why it cannot be told.
pub(crate) fn image_len(at: ReadAt) -> Result<usize, String> {
    let magic = at(0, 4).ok_or("the image has fewer than 4 bytes")?;
    let len = if magic == ELF_MAGIC {
        elf_len(at)?
    } else if magic == CCOB_MAGIC {
        ccob_len(at)?
    } else if at(0, BUNDLE_MAGIC.len()).as_deref() == Some(BUNDLE_MAGIC) {
        bundle_len(at)?
    } else {
        let first: Vec<String> = at(0, 8).unwrap_or(magic).iter().map(|b| format!("{b:02x}")).collect();
        return Err(format!("the image is neither an ELF code object nor an offload bundle (first bytes: {})", first.join(" ")));
    };
    usize::try_from(len).map_err(|_| format!("the image's headers give a size of {len} bytes"))
}

fn u16_at(at: ReadAt, offset: usize, what: &str) -> Result<u64, String> {
    let b = at(offset, 2).ok_or_else(|| format!("the image ends before its {what} (byte {offset:#x})"))?;
    Ok(u64::from(u16::from_le_bytes([b[0], b[1]])))
}

fn u32_at(at: ReadAt, offset: usize, what: &str) -> Result<u64, String> {
    let b = at(offset, 4).ok_or_else(|| format!("the image ends before its {what} (byte {offset:#x})"))?;
    Ok(u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
}

fn u64_at(at: ReadAt, offset: usize, what: &str) -> Result<u64, String> {
    let b = at(offset, 8).ok_or_else(|| format!("the image ends before its {what} (byte {offset:#x})"))?;
    Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
}

fn elf_len(at: ReadAt) -> Result<u64, String> {
    let shoff = u64_at(at, 0x28, "ELF e_shoff")?;
    let table = u16_at(at, 0x3c, "ELF e_shnum")? * u16_at(at, 0x3a, "ELF e_shentsize")?;
    shoff.checked_add(table).ok_or_else(|| format!("ELF e_shoff {shoff:#x} overflows"))
}

fn ccob_len(at: ReadAt) -> Result<u64, String> {
    match u16_at(at, 4, "CCOB version")? {
        2 => u32_at(at, 8, "CCOB total size"),
        3 => u64_at(at, 8, "CCOB total size"),
        v => Err(format!("a compressed offload bundle (CCOB) of version {v} records no total size (versions 2 and 3 do)")),
    }
}

fn bundle_len(at: ReadAt) -> Result<u64, String> {
    let count = u64_at(at, BUNDLE_MAGIC.len(), "bundle entry count")?;
    if count > MAX_ENTRIES {
        return Err(format!("the offload bundle claims {count} entries (more than {MAX_ENTRIES})"));
    }
    let mut pos = BUNDLE_MAGIC.len() as u64 + 8;
    let mut end = pos;
    for i in 0..count {
        let p = usize::try_from(pos).map_err(|_| format!("bundle entry {i} lies beyond the address space"))?;
        let offset = u64_at(at, p, "bundle entry offset")?;
        let size = u64_at(at, p + 8, "bundle entry size")?;
        let id_len = u64_at(at, p + 16, "bundle entry id length")?;
        if id_len > MAX_ID_BYTES {
            return Err(format!("bundle entry {i} has an id of {id_len} bytes (more than {MAX_ID_BYTES})"));
        }
        pos += 24 + id_len;
        let entry_end = offset.checked_add(size).ok_or_else(|| format!("bundle entry {i}: offset {offset:#x} + size {size:#x} overflows"))?;
        end = end.max(entry_end).max(pos);
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(image: &[u8]) -> impl Fn(usize, usize) -> Option<Vec<u8>> + '_ {
        move |o, n| image.get(o..o.checked_add(n)?).map(<[u8]>::to_vec)
    }

    /// An offload bundle as the layout in the module comment describes it.
    fn bundle(entries: &[(&str, usize)], first_offset: usize) -> Vec<u8> {
        let mut b = BUNDLE_MAGIC.to_vec();
        b.extend((entries.len() as u64).to_le_bytes());
        let mut offset = first_offset;
        for (id, size) in entries {
            b.extend((offset as u64).to_le_bytes());
            b.extend((*size as u64).to_le_bytes());
            b.extend((id.len() as u64).to_le_bytes());
            b.extend(id.as_bytes());
            offset += size;
        }
        b.resize(offset, 0xab);
        b
    }

    #[test]
    fn elf_ends_with_its_section_header_table() {
        let mut elf = vec![0u8; 64];
        elf[..4].copy_from_slice(ELF_MAGIC);
        elf[0x28..0x30].copy_from_slice(&0x1000u64.to_le_bytes());
        elf[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        elf[0x3c..0x3e].copy_from_slice(&5u16.to_le_bytes());
        assert_eq!(image_len(&reader(&elf)), Ok(0x1000 + 5 * 64));
    }

    #[test]
    fn plain_bundle_ends_with_its_last_entry() {
        let b =
            bundle(&[("host-x86_64-unknown-linux-gnu-", 0), ("hipv4-amdgcn-amd-amdhsa--gfx942", 0x234), ("hipv4-amdgcn-amd-amdhsa--gfx950", 0x100)], 0x1000);
        assert_eq!(b.len(), 0x1334);
        // The reader may see past the image (memory after it): the length still comes out.
        let mut longer = b.clone();
        longer.extend([0u8; 4096]);
        assert_eq!(image_len(&reader(&longer)), Ok(0x1334));
    }

    #[test]
    fn compressed_bundle_gives_its_total_size() {
        let mut v3 = CCOB_MAGIC.to_vec();
        v3.extend(3u16.to_le_bytes());
        v3.extend(1u16.to_le_bytes()); // zstd
        v3.extend(49834u64.to_le_bytes());
        v3.extend(1_435_200u64.to_le_bytes()); // uncompressed size
        v3.extend(0x1234u64.to_le_bytes()); // hash
        assert_eq!(image_len(&reader(&v3)), Ok(49834));
        let mut v2 = CCOB_MAGIC.to_vec();
        v2.extend(2u16.to_le_bytes());
        v2.extend(0u16.to_le_bytes()); // zlib
        v2.extend(777u32.to_le_bytes());
        v2.extend(5000u32.to_le_bytes());
        v2.extend(0u64.to_le_bytes());
        assert_eq!(image_len(&reader(&v2)), Ok(777));
        let mut v1 = CCOB_MAGIC.to_vec();
        v1.extend(1u16.to_le_bytes());
        v1.extend(1u16.to_le_bytes());
        v1.extend([0u8; 12]);
        assert!(image_len(&reader(&v1)).unwrap_err().contains("version 1"));
    }

    #[test]
    fn bad_images_are_errors_not_panics() {
        assert!(image_len(&reader(b"")).is_err());
        assert!(image_len(&reader(b"MZ\x90\x00\x03\x00\x00\x00")).unwrap_err().contains("4d 5a 90 00"));
        let b = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", 0x40)], 0x100);
        assert!(image_len(&reader(&b[..40])).is_err(), "a truncated entry table");
        let mut huge = BUNDLE_MAGIC.to_vec();
        huge.extend(u64::MAX.to_le_bytes());
        assert!(image_len(&reader(&huge)).unwrap_err().contains("entries"));
        let mut wrap = BUNDLE_MAGIC.to_vec();
        wrap.extend(1u64.to_le_bytes());
        wrap.extend(u64::MAX.to_le_bytes());
        wrap.extend(2u64.to_le_bytes());
        wrap.extend(0u64.to_le_bytes());
        assert!(image_len(&reader(&wrap)).unwrap_err().contains("overflows"));
    }
}
