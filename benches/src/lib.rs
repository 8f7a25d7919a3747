//! Benchmarks of amdsim (see `benches/`).
