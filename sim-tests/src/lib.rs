//! Integration and differential tests of amdsim (see `tests/`).
