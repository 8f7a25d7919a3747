//! AMDGPU wave interpreter.
#![deny(missing_docs)]
