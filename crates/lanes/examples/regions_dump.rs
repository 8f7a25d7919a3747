//! Prints the lane model of every instruction of a code object's functions:
//! `cargo run -p amdgpu-lanes --example regions_dump -- FILE.co [FROM TO]`.
use amdgpu_codeobj::CodeObject;
use amdgpu_lanes::regions::analyse_code_object;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: regions_dump FILE.co [FROM TO]")?;
    let hex =
        |s: &String| u64::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|e| e.to_string());
    let from = args.get(1).map(hex).transpose()?.unwrap_or(0);
    let to = args.get(2).map(hex).transpose()?.unwrap_or(u64::MAX);
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let co = CodeObject::parse(&bytes).map_err(|e| e.to_string())?;
    for f in analyse_code_object(&co)? {
        println!("function {:#x}..{:#x}", f.start, f.end);
        for r in f.regions.values() {
            println!(
                "  region {:#x} {:?} second {:x?} join {:x?}",
                r.id, r.kind, r.second, r.join
            );
        }
        for (pc, m) in f.models.range(from..to) {
            println!("  {pc:#x}: {m:?}");
        }
    }
    Ok(())
}
