//! Pure renderers: from run records to text for terminals and files. No clocks, environment or
//! file access here; every function writes into a caller's buffer.
#![warn(missing_docs)]

pub mod calls;
pub mod environment;
pub mod export;
pub mod format;
pub mod html;
pub mod json;
pub mod lab;
pub use fsbench_model::names;
mod renderer;
pub mod seed;
pub mod table;
pub mod tables;
pub mod terminal;
pub mod trend;

pub use renderer::{Format, Renderer};
