//! `amdsim exec [--gpu TARGET] [--threads N] [--capture DIR] -- PROGRAM [ARGS...]`: runs a
//! HIP program on the simulated GPU. The program runs as it is, with Debian's
//! real HIP runtime; amdsim's `libhsa-runtime64.so.1` (built from
//! `crates/hsa`) is put first on the library path, so the HIP runtime's HSA
//! calls reach the simulator. The program's exit status, stdout and stderr
//! pass through.

use amdsim_host::agent::Card;
use std::path::{Path, PathBuf};

/// Arguments of `amdsim exec`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples (from the top of the source tree):
  amdsim exec -- kernels/hip/bin/hipcc/memcpy_1d
  amdsim exec --gpu gfx1030 -- kernels/hip/bin/hipcc/warp_vote

The same without amdsim exec: put the folder holding amdsim's
libhsa-runtime64.so.1 first on LD_LIBRARY_PATH (`amdsim exec --print-lib-dir`
names it) and set AMDSIM_GPU.")]
pub struct ExecArgs {
    /// The GPU to simulate: gfx900, gfx906, gfx908, gfx90a, gfx1010, gfx1030,
    /// or a full target ID (gfx90a:sramecc+:xnack-).
    #[arg(long, value_name = "TARGET", default_value = "gfx900")]
    gpu: String,
    /// Host threads that run work-groups (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Write each kernel dispatch to DIR as a dispatch file (NNNN.ron) plus
    /// the memory it can reach, to replay with `amdsim run DIR/NNNN.ron`
    /// (or lanes, debug).
    #[arg(long, value_name = "DIR")]
    capture: Option<PathBuf>,
    /// Print the folder holding libhsa-runtime64.so.1 and exit.
    #[arg(long)]
    print_lib_dir: bool,
    /// The program and its arguments.
    #[arg(last = true, value_name = "PROGRAM [ARGS]...")]
    command: Vec<String>,
}

/// The file name cargo gives the HSA library.
const BUILT_NAME: &str = "libhsa_runtime64.so";
/// The name the HIP runtime asks the dynamic loader for.
const SONAME: &str = "libhsa-runtime64.so.1";

/// Finds amdsim's HSA library: `AMDSIM_HSA_LIBRARY`, or beside the amdsim
/// executable (a cargo build puts both in `target/<profile>/`).
fn find_library() -> Result<PathBuf, String> {
    if let Ok(p) = std::env::var("AMDSIM_HSA_LIBRARY") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("AMDSIM_HSA_LIBRARY={} is not a file", p.display()))
        };
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate amdsim itself: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    // cargo builds the library into deps/ with amdsim, and copies it up only
    // when it is built on its own: the newest copy is the one that matches.
    let newest = [
        dir.join(BUILT_NAME),
        dir.join("deps").join(BUILT_NAME),
        dir.join("../lib/amdsim").join(SONAME),
    ]
    .into_iter()
    .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
    .max_by_key(|(t, _)| *t);
    if let Some((_, p)) = newest {
        return Ok(p);
    }
    #[cfg(feature = "bundled-hsa")]
    return bundled_library();
    #[cfg(not(feature = "bundled-hsa"))]
    Err(format!(
        "amdsim's HSA library ({BUILT_NAME}) is not beside {}: build it with `cargo build --release -p amdsim-hsa`, set AMDSIM_HSA_LIBRARY, or install amdsim with `--features bundled-hsa`",
        exe.display()
    ))
}

/// The HSA library built with this amdsim (`--features bundled-hsa`, for `cargo
/// install`), embedded in the executable.
#[cfg(feature = "bundled-hsa")]
static BUNDLED: &[u8] = include_bytes!(env!("AMDSIM_BUNDLED_HSA"));

/// Writes the embedded HSA library to the user's cache (once per build of it:
/// `$XDG_CACHE_HOME/amdsim/<hash>/`, or `~/.cache/...`, or the temporary folder) and
/// returns its path.
#[cfg(feature = "bundled-hsa")]
fn bundled_library() -> Result<PathBuf, String> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in BUNDLED {
        h = (h ^ *b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|p| Path::new(&p).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = cache.join("amdsim").join(format!("{h:016x}"));
    let lib = dir.join(BUILT_NAME);
    if std::fs::metadata(&lib).is_ok_and(|m| m.len() == BUNDLED.len() as u64) {
        return Ok(lib);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let tmp = dir.join(format!("{BUILT_NAME}.{}", std::process::id()));
    std::fs::write(&tmp, BUNDLED).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    Ok(lib)
}

/// A folder holding `libhsa-runtime64.so.1` as a link to `lib`.
fn library_dir(lib: &Path) -> Result<PathBuf, String> {
    let lib = lib
        .canonicalize()
        .map_err(|e| format!("{}: {e}", lib.display()))?;
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in lib.as_os_str().as_encoded_bytes() {
        h = (h ^ *b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let dir = std::env::temp_dir()
        .join(format!("amdsim-{uid}"))
        .join(format!("{h:016x}"));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let link = dir.join(SONAME);
    if std::fs::read_link(&link).ok().as_deref() != Some(lib.as_path()) {
        let tmp = dir.join(format!("{SONAME}.{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&lib, &tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &link).map_err(|e| format!("{}: {e}", link.display()))?;
    }
    Ok(dir)
}

/// The program's path, resolved as the shell would (a name without `/` is
/// searched on PATH).
fn resolve(program: &str) -> Result<PathBuf, String> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{program}: no such file"))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{program}: not found on PATH"))
}

/// Refuses an ELF file that does not link the HIP runtime.
fn check_hip(path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !bytes.starts_with(b"\x7fELF") {
        return Ok(()); // a script: it may start a HIP program.
    }
    let needs_hip = bytes
        .windows(b"libamdhip64.so".len())
        .any(|w| w == b"libamdhip64.so");
    if needs_hip {
        Ok(())
    } else {
        Err(format!(
            "{}: not a HIP program (it does not link libamdhip64.so); amdsim exec runs programs built with hipcc or clang -x hip",
            path.display()
        ))
    }
}

/// The GPU targets of the offload bundle in a HIP program's `.hip_fatbin`
/// section (entries `hipv4-amdgcn-amd-amdhsa--gfx900:xnack-`), or `None`
/// when the file has no readable bundle.
fn bundle_targets(bytes: &[u8]) -> Option<Vec<String>> {
    use object::{Object, ObjectSection};
    let file = object::File::parse(bytes).ok()?;
    let data = file.section_by_name(".hip_fatbin")?.data().ok()?;
    let mut targets = Vec::new();
    // The section holds one bundle per compilation unit, each 4096-aligned.
    let magic = b"__CLANG_OFFLOAD_BUNDLE__";
    let mut at = 0;
    while let Some(pos) = data
        .get(at..)?
        .windows(magic.len())
        .position(|w| w == magic)
    {
        let b = &data[at + pos..];
        let u64_at = |o: usize| -> Option<u64> {
            Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
        };
        let n = u64_at(24)?.min(1024);
        let mut o = 32;
        for _ in 0..n {
            let id_len = u64_at(o + 16)? as usize;
            let id = b.get(o + 24..o + 24 + id_len)?;
            let id = String::from_utf8_lossy(id).into_owned();
            if let Some(t) = id
                .split_once("amdgcn-amd-amdhsa--")
                .map(|(_, t)| t.to_string())
                && !targets.contains(&t)
            {
                targets.push(t);
            }
            o += 24 + id_len;
        }
        at += pos + magic.len();
    }
    Some(targets)
}

/// Whether a bundle entry's target (`gfx900`, `gfx900:xnack-`) runs on the card.
fn runs_on(entry: &str, card: &Card) -> bool {
    let mut parts = entry.split(':');
    if parts.next() != Some(card.name()) {
        return false;
    }
    parts.all(|f| card.features().split(':').any(|c| c == f))
}

/// Says which targets a HIP program carries when none runs on the card (HIP
/// then fails with `hipErrorNoBinaryForGpu`, as on a GPU).
fn note_targets(path: &Path, card: &Card) {
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    let Some(targets) = bundle_targets(&bytes) else {
        return;
    };
    if !targets.is_empty() && !targets.iter().any(|t| runs_on(t, card)) {
        eprintln!(
            "amdsim: {} has device code for {}, none of which runs on the simulated {} (amdsim offers {}; choose one with --gpu)",
            path.display(),
            targets.join(", "),
            card.target_id(),
            amdsim_host::agent::CARDS
                .iter()
                .map(|c| c.target_id())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// The command that runs `command` (a HIP program and its arguments) on the
/// simulated `gpu`, with amdsim's HSA library first on the library path.
pub(crate) fn program_command(
    gpu: &str,
    threads: Option<usize>,
    command: &[String],
    usage: &str,
) -> Result<std::process::Command, crate::Failure> {
    let card = Card::for_target(gpu).map_err(crate::Failure::Usage)?;
    let lib = find_library()?;
    let dir = library_dir(&lib)?;
    let Some((program, args)) = command.split_first() else {
        return Err(crate::Failure::Usage(format!("no program given: {usage}")));
    };
    let path = resolve(program)?;
    check_hip(&path)?;
    note_targets(&path, card);
    let mut ld = dir.into_os_string();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|o| !o.is_empty()) {
        ld.push(":");
        ld.push(old);
    }
    let mut cmd = std::process::Command::new(&path);
    cmd.args(args)
        .env("LD_LIBRARY_PATH", ld)
        .env("AMDSIM_GPU", card.target_id());
    if let Some(n) = threads {
        cmd.env("RAYON_NUM_THREADS", n.max(1).to_string());
    }
    Ok(cmd)
}

/// Runs the program and returns its exit status (128 + the signal's number
/// when a signal ended it, as a shell reports it).
pub(crate) fn wait(cmd: &mut std::process::Command) -> Result<i32, crate::Failure> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", cmd.get_program().to_string_lossy()))?;
    use std::os::unix::process::ExitStatusExt;
    Ok(status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

/// Runs `amdsim exec`.
pub fn run(a: ExecArgs) -> Result<(), crate::Failure> {
    if a.print_lib_dir {
        Card::for_target(&a.gpu).map_err(crate::Failure::Usage)?;
        println!("{}", library_dir(&find_library()?)?.display());
        return Ok(());
    }
    let mut cmd = program_command(
        &a.gpu,
        a.threads,
        &a.command,
        "amdsim exec [--gpu TARGET] -- PROGRAM [ARGS...]",
    )?;
    if let Some(dir) = &a.capture {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let dir = dir
            .canonicalize()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        cmd.env("AMDSIM_CAPTURE", dir);
    }
    match wait(&mut cmd)? {
        0 => Ok(()),
        code => Err(crate::Failure::Exit(code)),
    }
}
