//! `amdsim dwarf ...` subcommands.

/// Runs `amdsim dwarf ARGS`.
pub fn run(_args: &[String]) -> Result<(), String> {
    Err("`amdsim dwarf` is not implemented yet".to_string())
}
