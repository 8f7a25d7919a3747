//! `help` and `help COMMAND`.

/// Each command: its names and what it does.
const COMMANDS: &[(&[&str], &str)] = &[
    (
        &["break", "b"],
        "break [LOCATION] [if COND]\nSet a breakpoint at LOCATION: FILE:LINE, LINE, FUNCTION (C++ names as written) or *ADDRESS.\nWith \"if COND\", a wave stops only where one of its active lanes meets COND\n(the first such lane gets the focus), e.g. break 20 if $_lane == 15.\nA breakpoint on code not loaded yet stays pending until a kernel's code object has it.",
    ),
    (
        &["tbreak"],
        "tbreak LOCATION [if COND]\nSet a temporary breakpoint: deleted when it is first hit.",
    ),
    (
        &["delete", "d"],
        "delete [N...]\nDelete breakpoints N (every breakpoint without N).",
    ),
    (
        &["disable"],
        "disable [N...]\nDisable breakpoints N (all without N).",
    ),
    (
        &["enable"],
        "enable [N...]\nEnable breakpoints N (all without N).",
    ),
    (
        &["condition"],
        "condition N [COND]\nStop at breakpoint N only where a lane meets COND (unconditional without COND).",
    ),
    (
        &["ignore"],
        "ignore N COUNT\nPass over the next COUNT hits of breakpoint N.",
    ),
    (
        &["run", "r"],
        "run\nStart the dispatch (for a program: let it run to its kernels).",
    ),
    (
        &["continue", "c"],
        "continue [N]\nRun until a breakpoint; with N, pass over the breakpoint stopped at N-1 more times.",
    ),
    (
        &["step", "s"],
        "step [N]\nRun the focused lane to its next source line (N times), passing over code where it is inactive.",
    ),
    (
        &["next", "n"],
        "next [N]\nAs step, but over calls: a function the wave calls (or an inlined call) runs to its return; a breakpoint reached on the way stops it.",
    ),
    (
        &["stepi", "si", "nexti", "ni"],
        "stepi [N]\nExecute N instructions of the focused wave.",
    ),
    (
        &["finish", "fin"],
        "finish\nRun until the focused wave returns from the function it is in.",
    ),
    (
        &["until", "u", "advance"],
        "until [LOCATION]\nRun until the focused wave reaches LOCATION (without: the next line).",
    ),
    (
        &["lane"],
        "lane [N] | lane apply LIST|all [-all|-active|-inactive] COMMAND\nFocus lane N of the current thread (wave); without N, say which lane has the focus.\n`lane apply` runs COMMAND for each of those lanes.",
    ),
    (
        &["thread"],
        "thread [N]\nFocus thread (wave) N of the running work-group. A kernel whose waves wait on other\nwork-groups' (a grid barrier) runs with every work-group resident: N may be a wave of any\nof them, and `info threads` lists them all.",
    ),
    (
        &["wave"],
        "wave N [group X,Y,Z]\nFocus wave N of the running (or a later) work-group.",
    ),
    (
        &["info"],
        "info lanes [-all|-active|-inactive] [LIST] | threads | breakpoints | locals | args |\n     frame | registers [REG...] | display\nShow those things about the focused wave and lane.",
    ),
    (
        &["print", "p", "call", "inspect"],
        "print[/FMT] [EXPR]\nEvaluate EXPR for the focused lane (C/C++/OpenCL: variables, members, [], *, &, casts,\narithmetic, comparisons, ?:, assignment; $pc, $exec, $vcc, $sN, $vN and ROCgdb's\nconvenience variables $_lane, $_lane_count, $_dispatch_pos, $_thread_workgroup_pos,\n$_lane_workgroup_pos, $_wave_id; HIP's threadIdx, blockIdx, blockDim, gridDim, warpSize;\nOpenCL's get_global_id(D) and friends; a C++ reference stands for the object it refers to,
static members read as obj.m or S::m). FMT: x d u o t c. The value is recorded as $N.",
    ),
    (
        &["output"],
        "output[/FMT] EXPR\nAs print, without recording the value or a newline.",
    ),
    (
        &["set"],
        "set var EXPR = VALUE\nWrite a variable (the lane's element of a register, or the memory).",
    ),
    (&["whatis"], "whatis EXPR\nThe type of EXPR."),
    (
        &["ptype"],
        "ptype EXPR\nThe type of EXPR, structs with their members (static ones too).",
    ),
    (
        &["display"],
        "display[/FMT] [EXPR]\nShow EXPR after every stop (every display without EXPR).",
    ),
    (
        &["undisplay"],
        "undisplay [N...]\nStop showing displays N (all without N).",
    ),
    (
        &["x"],
        "x/NFU ADDRESS\nExamine N units (b h w g) of memory in format F (x d u o t c, or i for instructions).",
    ),
    (
        &["disassemble"],
        "disassemble [/r] [ADDRESS]\nThe instructions of the function around the PC (or ADDRESS); /r adds the raw bytes.",
    ),
    (
        &["list", "l"],
        "list [LINE | FILE:LINE | FUNCTION]\nSource lines around a place; again for the next lines.",
    ),
    (
        &["directory", "dir"],
        "directory DIR...\nAlso look for source files in DIR.",
    ),
    (
        &["bt", "backtrace", "where"],
        "backtrace\nThe focused lane's frames.",
    ),
    (
        &["frame", "f", "up", "down"],
        "frame [N] | up [N] | down [N]\nSelect a frame of the focused lane: the innermost (0) or a caller's, whose\nvariables are then read as that caller sees them (read-only). Without N, frame\nshows the selected frame.",
    ),
    (
        &["quit", "q"],
        "quit\nEnd the session (and the program being debugged).",
    ),
    (
        &["help", "h"],
        "help [COMMAND]\nThe commands, or what COMMAND does.",
    ),
];

/// The text `help` prints for `rest` (empty: the list of commands).
pub(crate) fn help(rest: &str) -> Result<String, String> {
    let rest = rest.trim();
    if rest.is_empty() {
        return Ok(crate::HELP.to_string());
    }
    COMMANDS
        .iter()
        .find(|(names, _)| names.contains(&rest))
        .map(|(_, text)| text.to_string())
        .ok_or_else(|| format!("Undefined command: \"{rest}\".  Try \"help\"."))
}

/// Every command name (for completion).
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().flat_map(|(n, _)| n.iter().copied())
}
