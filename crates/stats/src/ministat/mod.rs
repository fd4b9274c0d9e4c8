//! ministat, exactly: the statistics, ASCII plot and Student's t comparison of Debian's
//! `ministat` 20150715 (FreeBSD's old version), byte for byte, plus the current FreeBSD formulas
//! behind `modern`. Pure: the caller reads files and prints.

mod data;
mod plot;
mod table;
mod ttable;

pub use data::{Dataset, ParseError, parse_dataset, strtod};
pub use table::{Options, render};
pub use ttable::{CONFIDENCE_LEVELS, confidence_index, student_t};
