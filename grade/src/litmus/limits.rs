//! How large a litmus file may be, in every dimension a parser or a later layer spends
//! memory, time or stack on. Each limit is checked while the file is read, before the
//! structure it bounds is built, so a hostile file ends in one located error instead of an
//! exhausted stack or heap. Litmus tests are small (the catalogues' largest has a dozen
//! threads, a few dozen statements and a condition of a few dozen comparisons); every limit
//! leaves a wide margin above that.

/// Bytes of one litmus file. The largest file of the copied catalogues has under 3 KiB.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Threads of one test. An execution holds at most 128 events, initial writes included
/// (`model::relation::MAX_EVENTS`), so a test with more threads than that could only be
/// judged if most of them did nothing.
pub const MAX_THREADS: usize = 128;

/// Statements of one thread, counting those in `if` bodies and the ones the C dialects
/// generate (a read hoisted out of an expression, one access per element of an array
/// indexed at run time). A run of a thread records at most 128 events, so a thread this long
/// could never be enumerated anyway.
pub const MAX_STATEMENTS_PER_THREAD: usize = 1000;

/// Rows of a column-layout table (each row gives each thread at most one instruction).
pub const MAX_ROWS: usize = MAX_STATEMENTS_PER_THREAD;

/// Shared locations of one test (array elements count one each). Every location has a cell
/// whose initial write is an event of every execution, and an execution holds at most 128
/// events, so a test with more could never be judged; lookups by name are linear, so the
/// limit also keeps a file of a hundred thousand names from taking quadratic time.
pub const MAX_LOCATIONS: usize = 128;

/// Labels of one thread (column dialects), for the same two reasons as [`MAX_ROWS`] and the
/// quadratic check that no label is defined twice.
pub const MAX_LABELS_PER_THREAD: usize = MAX_ROWS;

/// Local variables (registers) of one thread. Every state of the enumeration of a thread's
/// runs copies them.
pub const MAX_REGISTERS_PER_THREAD: usize = 256;

/// How deeply `if`s may nest (blocks, `if`/`else`, forward branches of the column dialects).
/// The layers after the parser walk statement trees recursively, so this bounds their stack.
pub const MAX_IF_NESTING: usize = 128;

/// Binary operators of one expression. Flat chains (`a + b + c …`) build trees as deep as
/// they are long, which evaluation, lowering and dropping walk recursively.
pub const MAX_EXPR_OPERATORS: usize = 256;

/// How deeply an expression's tree may nest in all, operators and parentheses together:
/// [`MAX_EXPR_OPERATORS`] plus the dialects' nesting limits (64 in the C dialects), rounded up.
pub const MAX_EXPR_DEPTH: usize = 512;

/// Comparisons (and `true`/`false`) in the condition or the filter, and terms in
/// `locations […]`. A chain `a /\ b /\ …` is a tree as deep as it is long.
pub const MAX_CONDITION_COMPARISONS: usize = 1024;

/// How deeply a condition's tree may nest in all (connectives, negations, parentheses).
pub const MAX_CONDITION_DEPTH: usize = 2 * MAX_CONDITION_COMPARISONS + 256;
