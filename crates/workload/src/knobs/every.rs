//! `label` and `until`: the keys every workload takes. The plan reads them before the workload
//! sees the rest (a label names the cell, `until=steady` is a sampling policy), so no engine
//! declares them.

use crate::knob::{self, Knob};
use crate::params::ParamDoc;

/// `label`: a name for the cell in every report (`label=uc-on`), recorded with the parameters
/// and never seen by the workload.
pub const LABEL: Knob<Option<String>> = knob::optional(
    "label",
    "names the cell in every table, chart and comparison (any workload)",
);

/// `until`: `steady` samples the cell until the SNIA steady state holds.
pub const UNTIL: Knob<Option<String>> = knob::optional(
    "until",
    "until=steady: sample until the SNIA steady state holds (any workload; --until-steady for all)",
);

/// The value of `until=` that asks for the steady state.
pub const STEADY: &str = "steady";

/// The table lines of the keys every workload takes.
pub const DOCS: &[ParamDoc] = &[LABEL.doc(), UNTIL.doc()];
