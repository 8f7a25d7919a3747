//! The breakpoint table: numbered breakpoints as the user set them, pending until a
//! dispatch's code object resolves them, with gdb's enable, ignore and temporary
//! dispositions and hit counts.

use amdgpu_lanes::service::PcKind;
use amdgpu_lanes::stepper::{BreakAt, Stepper};

/// gdb's `What` column for a breakpoint location: `in FUNCTION at FILE:LINE` (the
/// function alone without a line table, nothing without a function).
pub(crate) fn place(stepper: &Stepper, addr: u64) -> String {
    let src = stepper.service().source(addr, PcKind::Current);
    match (src.function, src.line) {
        (Some(f), Some((file, line))) => format!("in {f} at {file}:{line}"),
        (Some(f), None) => format!("in {f}"),
        (None, Some((file, line))) => format!("at {file}:{line}"),
        (None, None) => String::new(),
    }
}

/// One breakpoint.
#[derive(Clone, Debug)]
pub(crate) struct Breakpoint {
    pub number: u32,
    /// The location as typed.
    pub text: String,
    pub at: BreakAt,
    /// Link-time addresses in the dispatch being debugged (empty: pending).
    pub resolved: Vec<u64>,
    /// gdb's `What` for each resolved address: `in FUNCTION at FILE:LINE`.
    pub places: Vec<String>,
    pub enabled: bool,
    /// `tbreak`: deleted when hit.
    pub temporary: bool,
    pub hits: u64,
    /// Hits still to pass over (`ignore N COUNT`, `continue N`).
    pub ignore: u64,
    /// `if COND`: the wave stops only where a lane satisfies it.
    pub condition: Option<String>,
}

/// The breakpoints.
#[derive(Default)]
pub(crate) struct Table {
    list: Vec<Breakpoint>,
    next: u32,
}

/// What a stop at a PC means for the breakpoints there.
pub(crate) enum Hit {
    /// Report the stop at these breakpoints (numbers; temporary ones are gone).
    Stop(Vec<(u32, bool)>),
    /// Every breakpoint there is ignored this time: run on.
    Ignored,
    /// No enabled breakpoint is at the PC (a stop for another reason).
    None,
}

impl Table {
    /// Adds a breakpoint; returns its number.
    pub fn add(
        &mut self,
        text: &str,
        at: BreakAt,
        resolved: Vec<u64>,
        places: Vec<String>,
        temporary: bool,
    ) -> u32 {
        self.next += 1;
        self.list.push(Breakpoint {
            number: self.next,
            text: text.to_string(),
            at,
            resolved,
            places,
            enabled: true,
            temporary,
            hits: 0,
            ignore: 0,
            condition: None,
        });
        self.next
    }

    /// The function each breakpoint with an address at `pc` names (`None`: a line or an
    /// address breakpoint), by number.
    pub fn functions_at(&self, pc: u64) -> Vec<(u32, Option<String>)> {
        self.list
            .iter()
            .filter(|b| b.resolved.contains(&pc))
            .map(|b| match &b.at {
                BreakAt::Function(f) => (b.number, Some(f.clone())),
                _ => (b.number, None),
            })
            .collect()
    }

    /// Every breakpoint, in number order.
    pub fn all(&self) -> &[Breakpoint] {
        &self.list
    }

    /// Breakpoint `n`.
    pub fn get_mut(&mut self, n: u32) -> Result<&mut Breakpoint, String> {
        self.list
            .iter_mut()
            .find(|b| b.number == n)
            .ok_or_else(|| format!("No breakpoint number {n}."))
    }

    /// Removes breakpoint `n`.
    pub fn delete(&mut self, n: u32) -> Result<(), String> {
        let before = self.list.len();
        self.list.retain(|b| b.number != n);
        if self.list.len() == before {
            return Err(format!("No breakpoint number {n}."));
        }
        Ok(())
    }

    /// Resolves every breakpoint against the dispatch of `stepper`; returns whether
    /// any enabled one has an address in it.
    pub fn resolve(&mut self, stepper: &mut Stepper) -> bool {
        for b in &mut self.list {
            b.resolved = stepper.break_at(&b.at).unwrap_or_default();
            b.places = b.resolved.iter().map(|a| place(stepper, *a)).collect();
        }
        self.sync(stepper);
        self.list
            .iter()
            .any(|b| b.enabled && !b.resolved.is_empty())
    }

    /// Makes the stepper's breakpoint addresses those of the enabled breakpoints.
    pub fn sync(&self, stepper: &mut Stepper) {
        let dbg = stepper.debugger();
        dbg.clear_all();
        for b in self.list.iter().filter(|b| b.enabled) {
            for a in &b.resolved {
                dbg.break_at_address(*a);
            }
        }
    }

    /// The conditions of the enabled breakpoints at `pc`, by number (`None`: none).
    pub fn conditions_at(&self, pc: u64) -> Vec<(u32, Option<String>)> {
        self.list
            .iter()
            .filter(|b| b.enabled && b.resolved.contains(&pc))
            .map(|b| (b.number, b.condition.clone()))
            .collect()
    }

    /// Counts a stop of a wave at link-time address `pc` for the breakpoints there
    /// whose condition holds (`holds`).
    pub fn hit(&mut self, pc: u64, holds: &[u32]) -> Hit {
        let mut stop = Vec::new();
        let mut any = false;
        for b in self
            .list
            .iter_mut()
            .filter(|b| b.enabled && b.resolved.contains(&pc) && holds.contains(&b.number))
        {
            any = true;
            b.hits += 1;
            if b.ignore > 0 {
                b.ignore -= 1;
            } else {
                stop.push((b.number, b.temporary));
            }
        }
        self.list
            .retain(|b| !(b.temporary && stop.contains(&(b.number, true))));
        match (any, stop.is_empty()) {
            (false, _) => Hit::None,
            (true, true) => Hit::Ignored,
            (true, false) => Hit::Stop(stop),
        }
    }

    /// `info breakpoints`, as gdb prints it.
    pub fn info(&self) -> String {
        if self.list.is_empty() {
            return "No breakpoints or watchpoints.\n".into();
        }
        let mut out = String::from("Num     Type           Disp Enb Address            What\n");
        for b in &self.list {
            let disp = if b.temporary { "del " } else { "keep" };
            let enb = if b.enabled { 'y' } else { 'n' };
            let place = |k: usize| b.places.get(k).map_or("", String::as_str);
            let (address, what) = match b.resolved.as_slice() {
                [] => ("<PENDING>".to_string(), b.text.as_str()),
                [a] => (format!("{a:#018x}"), place(0)),
                _ => ("<MULTIPLE>".to_string(), ""),
            };
            out += &format!(
                "{:<7} breakpoint     {disp} {enb}   {address:<18} {what}\n",
                b.number
            );
            if b.resolved.len() > 1 {
                for (k, a) in b.resolved.iter().enumerate() {
                    let n = format!("{}.{}", b.number, k + 1);
                    out += &format!(
                        "{n:<7} {:<14} {:<4} {enb}   {a:#018x} {}\n",
                        "",
                        "",
                        place(k)
                    );
                }
            }
            if let Some(c) = &b.condition {
                out += &format!("\tstop only if {c}\n");
            }
            if b.hits > 0 {
                let s = if b.hits == 1 { "" } else { "s" };
                out += &format!("\tbreakpoint already hit {} time{s}\n", b.hits);
            }
            if b.ignore > 0 {
                out += &format!("\tWill ignore next {} crossings of breakpoint.\n", b.ignore);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gdb's `info breakpoints`: a location's `Enb` under the header's, `What` as
    /// `in FUNCTION at FILE:LINE`, a breakpoint with several locations on a row of its
    /// own followed by one row per location (`N.K`).
    #[test]
    fn info_lays_out_locations_as_gdb() {
        let mut t = Table::default();
        let at = BreakAt::Line {
            file: None,
            line: 14,
        };
        t.add(
            "14",
            at.clone(),
            vec![0x1970],
            vec!["in k at k.cl:14".into()],
            false,
        );
        t.add(
            "f",
            at.clone(),
            vec![0x1900, 0x1a00],
            vec!["in f(int) at k.cl:3".into(), "in f(float) at k.cl:5".into()],
            true,
        );
        t.add("99", at, vec![], vec![], false);
        let want = "\
Num     Type           Disp Enb Address            What
1       breakpoint     keep y   0x0000000000001970 in k at k.cl:14
2       breakpoint     del  y   <MULTIPLE>         \n\
2.1                         y   0x0000000000001900 in f(int) at k.cl:3
2.2                         y   0x0000000000001a00 in f(float) at k.cl:5
3       breakpoint     keep y   <PENDING>          99
";
        assert_eq!(t.info(), want);
        let header = want.lines().next().unwrap();
        let location = want.lines().nth(3).unwrap();
        assert_eq!(header.find("Enb"), location.find('y'));
    }
}
