//! Lane service and the bridge between a stopped simulated wave and the DWARF evaluator.
#![deny(missing_docs)]
