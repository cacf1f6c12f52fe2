//! Which code object of a bundle a GPU runs, chosen as ROCm chooses it.
//!
//! A target id names a processor and, optionally, the XNACK and SRAMECC modes the code was
//! built for (`gfx90a:xnack+`, `gfx90a:sramecc-:xnack-`, or plain `gfx90a` for code built to
//! run in either mode; AMDGPUUsage, "Target ID"). A GPU runs in one mode of each (ROCm: XNACK
//! is on only with `HSA_XNACK=1`; SRAMECC as the board's firmware sets it). A code object is
//! compatible when its processor is the GPU's and every feature it names has the GPU's
//! setting; among compatible ones the runtime takes the most specific (AMDGPUUsage, "Target
//! ID": "code objects compiled for a specific setting are preferred over `any`"; ROCm's
//! code-object manager ranks exact feature matches first). Libraries ship both twins of a
//! feature (`gfx90a:xnack+` and `gfx90a:xnack-`), so choosing one is never an error.

use super::error::show;
use super::{BundleEntry, CodeObject, LoadError};
use crate::target::{FeatureSetting, Target};

/// How well `target_id` fits `device`: `None` if it cannot run there, else the number of
/// features it names (more is more specific).
pub fn rank(target_id: &str, device: &Target) -> Option<u32> {
    let mut parts = target_id.split(':');
    // By name: a gfx1101 code object is not for a gfx1100 even where we decode them alike.
    if parts.next()? != device.processor.name() {
        return None;
    }
    let mut named = 0;
    for feature in parts.filter(|p| !p.is_empty()) {
        let (name, want) = match feature.strip_suffix('+') {
            Some(n) => (n, FeatureSetting::On),
            None => (feature.strip_suffix('-')?, FeatureSetting::Off),
        };
        let has = match name {
            "xnack" => device.xnack,
            "sramecc" => device.sramecc,
            _ => return None,
        };
        if has != want {
            return None;
        }
        named += 1;
    }
    Some(named)
}

/// The entry `device` runs (the most specific compatible one, the first of equals), if any.
pub fn best_entry<'e>(entries: &'e [BundleEntry], device: &Target) -> Option<&'e BundleEntry> {
    let mut best: Option<(&BundleEntry, u32)> = None;
    for e in entries {
        let Some(r) = e.target_id.as_deref().and_then(|t| rank(t, device)) else { continue };
        if best.is_none_or(|(_, b)| r > b) {
            best = Some((e, r));
        }
    }
    best.map(|(e, _)| e)
}

/// Load, at load base `base`, the code object of `data` (a code object, bundle or HIP host
/// file) that `device` runs; the error lists what the file holds.
pub fn load_for_device(data: &[u8], device: &Target, base: u64) -> Result<CodeObject, LoadError> {
    let listing = super::list_targets(data)?;
    let entry = best_entry(&listing.entries, device).ok_or_else(|| {
        let ids: Vec<String> = listing.entries.iter().filter_map(|e| e.target_id.as_deref()).map(show).collect();
        LoadError::TargetNotFound { wanted: show(&device.target_id()), available: if ids.is_empty() { "none".into() } else { ids.join(", ") } }
    })?;
    super::load_entry_at(data, entry, base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Processor;

    fn device(xnack: FeatureSetting, sramecc: FeatureSetting) -> Target {
        Target { processor: Processor::Gfx90a, xnack, sramecc }
    }

    #[test]
    fn features_must_match_the_device_mode() {
        let off_on = device(FeatureSetting::Off, FeatureSetting::On);
        assert_eq!(rank("gfx90a", &off_on), Some(0));
        assert_eq!(rank("gfx90a:xnack-", &off_on), Some(1));
        assert_eq!(rank("gfx90a:xnack+", &off_on), None);
        assert_eq!(rank("gfx90a:sramecc+:xnack-", &off_on), Some(2));
        assert_eq!(rank("gfx90a:sramecc-:xnack-", &off_on), None);
        assert_eq!(rank("gfx908", &off_on), None);
        assert_eq!(rank("gfx90a:bogus+", &off_on), None);
        // A processor without the feature runs no code object that names it.
        let rdna = Target::new(Processor::Gfx1100);
        assert_eq!(rank("gfx1100", &rdna), Some(0));
        assert_eq!(rank("gfx1100:xnack-", &rdna), None);
        assert_eq!(rank("gfx1101", &rdna), None);
    }

    #[test]
    fn the_most_specific_twin_wins() {
        let entry = |tid: &str| BundleEntry {
            id: format!("hipv4-amdgcn-amd-amdhsa--{tid}"),
            kind: "hipv4".into(),
            target_id: Some(tid.into()),
            processor: tid.split(':').next().and_then(|p| p.parse().ok()),
            offset: 0,
            size: 0,
        };
        let entries = vec![entry("gfx90a"), entry("gfx90a:xnack+"), entry("gfx90a:xnack-"), entry("gfx1030")];
        let off = device(FeatureSetting::Off, FeatureSetting::On);
        assert_eq!(best_entry(&entries, &off).and_then(|e| e.target_id.as_deref()), Some("gfx90a:xnack-"));
        let on = device(FeatureSetting::On, FeatureSetting::On);
        assert_eq!(best_entry(&entries, &on).and_then(|e| e.target_id.as_deref()), Some("gfx90a:xnack+"));
        assert!(best_entry(&entries[3..], &on).is_none());
    }
}
