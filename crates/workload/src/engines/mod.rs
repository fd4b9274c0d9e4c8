//! One module per workload. Each exposes `INFO` (name, parameters, builder) for the registry.

pub mod null;
