//! The shared locations of a test, as the init block and the parameter lists declare them.
//!
//! An array `atomic_int y[2]` is one location per element (`y` for element 0, `y[1]`, …),
//! so accesses stay word-sized [`Target`]s; scalars are arrays of one.

use super::super::error::{ParseResult, SyntaxError};
use super::super::limits::MAX_LOCATIONS;
use super::super::program::{LocId, Location, Span, Target};
use hipscope_mm::{Space, Value, ValueType};

/// Arrays longer than this are refused: litmus tests use a handful of elements, and the
/// limit keeps a typo (`y[100000000]`) from allocating without bound.
pub const MAX_ARRAY: usize = 64;

/// One declared name: its elements are `first .. first + len`.
#[derive(Clone, Debug)]
pub struct Group {
    pub name: String,
    pub first: u16,
    pub len: u16,
    /// The type some declaration gave (`atomic_uint`, `global long*`) and where; `int` when
    /// none does.
    pub ty: Option<(ValueType, Span)>,
    /// Where the initial values were written (or the first parameter naming the group).
    pub span: Span,
}

impl Group {
    /// Element `i` as a whole-value target, if it exists.
    pub fn element(&self, i: Value) -> Option<Target> {
        let i = u16::try_from(i).ok().filter(|i| *i < self.len)?;
        Some(Target::whole(LocId(self.first + i), self.value_type()))
    }

    pub fn value_type(&self) -> ValueType {
        self.ty.map_or(ValueType::INT, |(t, _)| t)
    }
}

#[derive(Default, Debug)]
pub struct Locations {
    locations: Vec<Location>,
    groups: Vec<Group>,
    /// Whether the init block declares scalar locations (see [`Locations::parameter`]).
    declared: bool,
}

impl Locations {
    pub fn group(&self, index: usize) -> Option<&Group> {
        self.groups.get(index)
    }

    pub fn group_named(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.name == name)
    }

    /// A location (an element) by the name the condition uses.
    pub fn by_name(&self, name: &str) -> Option<LocId> {
        self.locations.iter().position(|l| l.name == name).map(|i| LocId(i as u16))
    }

    /// The type of location `loc` (`int` when none was declared).
    pub fn type_of(&self, loc: LocId) -> ValueType {
        let i = loc.0;
        self.groups.iter().find(|g| (g.first..g.first + g.len).contains(&i)).map_or(ValueType::INT, Group::value_type)
    }

    /// The locations, each with its group's type and its initial value converted to it; an
    /// initial value the type cannot hold is an error where it was written.
    pub fn into_locations(mut self) -> ParseResult<Vec<Location>> {
        for g in &self.groups {
            let ty = g.value_type();
            let range = usize::from(g.first)..usize::from(g.first) + usize::from(g.len);
            for loc in self.locations.get_mut(range).into_iter().flatten() {
                let Some(v) = ty.literal(loc.init) else {
                    return Err(SyntaxError::new(g.span, format!("{} does not fit `{}`, of type {}", loc.init, loc.name, ty.describe())));
                };
                (loc.init, loc.ty) = (v, ty);
            }
        }
        Ok(self.locations)
    }

    /// Records the type a declaration gives `group`; two declarations must agree.
    pub fn set_type(&mut self, group: usize, ty: ValueType, span: Span) -> ParseResult<()> {
        let Some(g) = self.groups.get_mut(group) else { return Ok(()) };
        match g.ty {
            Some((earlier, at)) if earlier != ty => Err(SyntaxError::new(
                span,
                format!("`{}` is declared `{ty}` here but `{earlier}` at {}:{}; one location has one type", g.name, at.line, at.column),
            )),
            Some(_) => Ok(()),
            None => {
                g.ty = Some((ty, span));
                Ok(())
            }
        }
    }

    /// Declares `name` with `inits.len()` elements; declaring a name twice is an error.
    pub fn declare(&mut self, name: &str, inits: &[Value], atomic: bool, span: Span) -> ParseResult<usize> {
        if self.group_named(name).is_some() {
            return Err(SyntaxError::new(span, format!("`{name}` is initialised twice in the init block")));
        }
        if inits.is_empty() || inits.len() > MAX_ARRAY {
            return Err(SyntaxError::new(span, format!("`{name}` must have between 1 and {MAX_ARRAY} elements")));
        }
        let first = u16::try_from(self.locations.len()).ok().filter(|f| usize::from(*f) + inits.len() <= MAX_LOCATIONS);
        let Some(first) = first else {
            return Err(SyntaxError::new(span, format!("more than {MAX_LOCATIONS} locations (array elements count one each); a litmus test has a handful")));
        };
        for (i, init) in inits.iter().enumerate() {
            let element = if i == 0 { name.to_string() } else { format!("{name}[{i}]") };
            self.locations.push(Location { name: element, space: Space::Global, init: *init, ty: ValueType::INT, atomic_type: atomic });
        }
        self.groups.push(Group { name: name.to_string(), first, len: inits.len() as u16, ty: None, span });
        Ok(self.groups.len() - 1)
    }

    /// Ends the init block: from now on, if it gave a scalar location its value, a parameter
    /// must name a declared location.
    pub fn end_init_block(&mut self) {
        self.declared = self.groups.iter().any(|g| g.len == 1);
    }

    /// The group a parameter names. When the init block gives scalar locations their values,
    /// it declares the test's locations, and a parameter naming another is a typo that would
    /// create a location of its own. Dartagnan also reads tests whose init block gives no
    /// scalar a value (`{}` in 14 files of its catalogue, only an array's length in one):
    /// every other parameter is then a location starting at 0, created on first use.
    pub fn parameter(&mut self, name: &str, span: Span) -> ParseResult<usize> {
        match self.group_named(name) {
            Some(g) => Ok(g),
            None if self.declared => {
                let known: Vec<&str> = self.groups.iter().map(|g| g.name.as_str()).collect();
                Err(SyntaxError::new(
                    span,
                    format!("`{name}` is not a declared location (the init block declares {}); add `[{name}]=0;` to it", known.join(", ")),
                ))
            }
            None => self.declare(name, &[0], false, span),
        }
    }

    /// Marks every element atomic (`atomic_int` in some declaration).
    pub fn set_atomic(&mut self, group: usize) {
        if let Some(g) = self.groups.get(group) {
            let range = usize::from(g.first)..usize::from(g.first) + usize::from(g.len);
            for loc in self.locations.get_mut(range).into_iter().flatten() {
                loc.atomic_type = true;
            }
        }
    }

    /// Records that a declaration puts the group in `space`. Threads may disagree (one
    /// file of the catalogue declares `y` `global` in P0 and `local` in P1); as in
    /// Dartagnan, whose reading the catalogue's verdicts follow, the last declaration wins.
    pub fn set_space(&mut self, group: usize, space: Space) {
        let Some(g) = self.groups.get_mut(group) else { return };
        let range = usize::from(g.first)..usize::from(g.first) + usize::from(g.len);
        for loc in self.locations.get_mut(range).into_iter().flatten() {
            loc.space = space;
        }
    }
}
