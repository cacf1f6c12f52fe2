//! Source lines of code addresses, from a code object's DWARF line tables (`.debug_line`, as
//! clang writes with `-g` or `-gline-tables-only`). A code object without them has an empty
//! table: every lookup answers `None`, which reports read as "no source line".

use gimli::{EndianSlice, LittleEndian};
use object::{Object, ObjectSection};

/// A place in the source.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SourceLine {
    /// The file as the line table names it (directory joined when the table gives one).
    pub file: String,
    pub line: u32,
}

impl std::fmt::Display for SourceLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Address → line, for every sequence of every compilation unit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineTable {
    /// (first address, end address, file index, line), sorted by first address: the rows of
    /// the line programs as ranges.
    ranges: Vec<(u64, u64, u32, u32)>,
    files: Vec<String>,
}

type Slice<'a> = EndianSlice<'a, LittleEndian>;

impl LineTable {
    /// The line table of the ELF code object `bytes`. Missing debug sections give an empty
    /// table; malformed ones an error naming what is wrong.
    pub fn of(bytes: &[u8]) -> Result<LineTable, String> {
        let file = object::File::parse(bytes).map_err(|e| format!("not an ELF object: {e}"))?;
        let load = |id: gimli::SectionId| -> Result<Slice<'_>, gimli::Error> {
            let data = file.section_by_name(id.name()).and_then(|s| s.data().ok()).unwrap_or(&[]);
            Ok(EndianSlice::new(data, LittleEndian))
        };
        let dwarf = gimli::Dwarf::load(load).map_err(|e| format!(".debug_*: {e}"))?;
        let mut table = LineTable::default();
        let mut units = dwarf.units();
        while let Some(header) = units.next().map_err(|e| format!(".debug_info: {e}"))? {
            let unit = dwarf.unit(header).map_err(|e| format!(".debug_info: {e}"))?;
            if let Some(program) = unit.line_program.clone() {
                table.add_program(&dwarf, &unit, program).map_err(|e| format!(".debug_line: {e}"))?;
            }
        }
        table.ranges.sort_unstable();
        Ok(table)
    }

    fn add_program(
        &mut self,
        dwarf: &gimli::Dwarf<Slice<'_>>,
        unit: &gimli::Unit<Slice<'_>>,
        program: gimli::IncompleteLineProgram<Slice<'_>>,
    ) -> gimli::Result<()> {
        let mut rows = program.rows();
        let mut open: Option<(u64, u32, u32)> = None;
        let mut names = std::collections::HashMap::new();
        while let Some((header, row)) = rows.next_row()? {
            if let Some((start, file, line)) = open.take() {
                if row.address() > start {
                    self.ranges.push((start, row.address(), file, line));
                }
            }
            if row.end_sequence() {
                continue;
            }
            let Some(line) = row.line() else { continue };
            let index = row.file_index();
            let file = match names.get(&index) {
                Some(&f) => f,
                None => {
                    let name = header.file(index).map(|f| file_name(dwarf, unit, header, f)).unwrap_or_else(|| "?".into());
                    let f = self.intern(name);
                    names.insert(index, f);
                    f
                }
            };
            open = Some((row.address(), file, line.get() as u32));
        }
        Ok(())
    }

    fn intern(&mut self, name: String) -> u32 {
        match self.files.iter().position(|f| *f == name) {
            Some(i) => i as u32,
            None => {
                self.files.push(name);
                (self.files.len() - 1) as u32
            }
        }
    }

    /// The same table for the code object loaded at `base` (its addresses shifted by it).
    pub fn shifted(mut self, base: u64) -> LineTable {
        for r in &mut self.ranges {
            r.0 = r.0.wrapping_add(base);
            r.1 = r.1.wrapping_add(base);
        }
        self
    }

    /// The source line of the instruction at `address`.
    pub fn at(&self, address: u64) -> Option<SourceLine> {
        let i = self.ranges.partition_point(|r| r.0 <= address).checked_sub(1)?;
        let (start, end, file, line) = self.ranges[i];
        (start..end).contains(&address).then(|| SourceLine { file: self.files[file as usize].clone(), line })
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// A line-table file entry as a path: its directory (unless it is the compilation directory
/// ".") and name.
fn file_name(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    header: &gimli::LineProgramHeader<Slice<'_>>,
    f: &gimli::FileEntry<Slice<'_>>,
) -> String {
    let text = |v: gimli::AttributeValue<Slice<'_>>| dwarf.attr_string(unit, v).ok().map(|s| s.to_string_lossy().into_owned());
    let name = text(f.path_name()).unwrap_or_else(|| "?".into());
    let dir = f.directory(header).and_then(text).unwrap_or_default();
    if name.starts_with('/') || dir.is_empty() || dir == "." {
        name
    } else {
        format!("{dir}/{name}")
    }
}
