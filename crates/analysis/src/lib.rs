//! What a run's numbers say: each cell against its baseline within a run ([`cells`]), two runs
//! cell by cell with the regression gate ([`runs`]), a suite's comparison policy ([`policy`]), and
//! scaling verdicts of worker sweeps ([`sweeps`]). Pure functions of run records.
#![warn(missing_docs)]

pub mod bound;
pub mod bound_checks;
pub mod bound_profile;
pub mod bound_server;
#[cfg(test)]
mod bound_tests;
pub mod card;
pub mod cells;
pub mod explain;
pub mod gate;
pub mod html;
pub mod load;
pub mod plausible;
pub mod policy;
pub mod runs;
pub mod scaling;
pub mod sequential;
pub mod sweeps;
pub mod trend;
