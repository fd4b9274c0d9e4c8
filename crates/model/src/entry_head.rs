//! A result entry without its samples: what is stored or copied apart from them, cheaply (a
//! clone of the entry would copy every sample only to drop them).

use crate::ResultEntry;

impl ResultEntry {
    /// This entry with no samples. Every field is named (no `..`), so a field added to
    /// [`ResultEntry`] must be decided on here.
    pub fn without_samples(&self) -> ResultEntry {
        let ResultEntry {
            target,
            workload,
            params,
            sweep,
            cache,
            headline,
            also_shown,
            samples: _,
            summary,
            precision_reached,
            steady,
            warnings,
            error,
            bound,
            profile,
        } = self;
        ResultEntry {
            target: target.clone(),
            workload: workload.clone(),
            params: params.clone(),
            sweep: sweep.clone(),
            cache: cache.clone(),
            headline: headline.clone(),
            also_shown: also_shown.clone(),
            samples: Vec::new(),
            summary: summary.clone(),
            precision_reached: *precision_reached,
            steady: *steady,
            warnings: warnings.clone(),
            error: error.clone(),
            bound: bound.clone(),
            profile: profile.clone(),
        }
    }
}
