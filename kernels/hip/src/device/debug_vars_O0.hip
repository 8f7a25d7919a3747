// debug_vars.hip built with -O0 -g (bin/<compiler>/debug_vars_O0.<gfx>.co):
// the variables live in private memory, at DW_OP_fbreg offsets from a frame
// base in an SGPR (crates/lanes/tests/o0_variables.rs reads them).
// flags: -O0 -g
#include "debug_vars.hip"
