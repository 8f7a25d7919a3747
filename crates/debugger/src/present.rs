//! How waves and lanes are named and shown: ROCgdb's target ids (`AMDGPU Wave
//! 1:1:1:1 (0,0,0)/0`, `AMDGPU Lane 1:1:1:1/0 (0,0,0)[0,0,0]`), thread numbers, wave
//! names and gdb's lane ranges.
//!
//! amdsim has one agent and one queue per dispatch as far as the debugger shows them
//! (both 1); dispatches are numbered from 1 in the order the session sees them, and waves
//! from 1 in the order of the dispatch (work-groups in x, y, z order, then waves), which
//! is also their thread number.

/// Where a wave is in its dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// The dispatch's number in the session.
    pub dispatch: u64,
    /// The work-group.
    pub group: [u32; 3],
    /// Work-groups in each dimension.
    pub groups: [u32; 3],
    /// Work-items of a work-group in each dimension.
    pub group_size: [u32; 3],
    /// The wave in its work-group.
    pub wave: u32,
    /// Lanes per wave.
    pub wave_size: u32,
}

impl Place {
    /// Waves in a work-group.
    pub fn waves_per_group(&self) -> u32 {
        let items: u32 = self.group_size.iter().product();
        items.div_ceil(self.wave_size.max(1))
    }

    /// The thread number (1 for the first wave of the dispatch).
    pub fn thread(&self) -> u64 {
        let [gx, gy, _] = self.groups.map(u64::from);
        let [x, y, z] = self.group.map(u64::from);
        let flat = x + gx * (y + gy * z);
        1 + flat * u64::from(self.waves_per_group()) + u64::from(self.wave)
    }

    /// ROCgdb's wave target id.
    pub fn wave_id(&self) -> String {
        let [x, y, z] = self.group;
        format!(
            "AMDGPU Wave 1:1:{}:{} ({x},{y},{z})/{}",
            self.dispatch,
            self.thread(),
            self.wave
        )
    }

    /// The work-item of `lane` in its work-group, `None` for a lane without one (a
    /// partial wave's unused lanes).
    pub fn work_item(&self, lane: u32) -> Option<[u32; 3]> {
        let [gx, gy, gz] = self.group_size;
        let flat = self.wave * self.wave_size + lane;
        (flat < gx * gy * gz).then(|| [flat % gx, (flat / gx) % gy, flat / (gx * gy)])
    }

    /// ROCgdb's lane target id.
    pub fn lane_id(&self, lane: u32) -> String {
        let [x, y, z] = self.group;
        let item = match self.work_item(lane) {
            Some([i, j, k]) => format!("[{i},{j},{k}]"),
            None => "[?,?,?]".into(),
        };
        format!(
            "AMDGPU Lane 1:1:{}:{}/{lane} ({x},{y},{z}){item}",
            self.dispatch,
            self.thread()
        )
    }

    /// `$_dispatch_pos` / `$_wave_id`: `(x,y,z)/wave`.
    pub fn dispatch_pos(&self) -> String {
        let [x, y, z] = self.group;
        format!("({x},{y},{z})/{}", self.wave)
    }

    /// Lanes that have a work-item (`$_lane_count`).
    pub fn used_lanes(&self) -> u32 {
        (0..self.wave_size)
            .filter(|l| self.work_item(*l).is_some())
            .count() as u32
    }
}

/// A wave's name as ROCgdb gives it: the kernel's name without parameters, namespaces
/// or template arguments, cut to 16 characters (11 and a 4-digit hash) when longer.
pub(crate) fn wave_name(function: &str) -> String {
    let base = function.split('(').next().unwrap_or(function);
    let base = base.split('<').next().unwrap_or(base);
    let base = base.rsplit("::").next().unwrap_or(base).trim();
    if base.chars().count() <= 16 {
        return base.to_string();
    }
    let mut h: u32 = 0x811c_9dc5;
    for b in base.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    let head: String = base.chars().take(11).collect();
    format!("{head}-{:04x}", h & 0xffff)
}

/// A function's name as gdb shows it in a frame: without its parameter list.
pub(crate) fn frame_function(function: &str) -> &str {
    // The parameter list starts at the first `(` outside template arguments that is
    // not the name of `operator()`.
    // Whether `s` ends with the keyword `operator` (not `my_operator`).
    let keyword = |s: &str| {
        s.strip_suffix("operator").is_some_and(|before| {
            !before
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    let mut depth = 0i32;
    let mut end = function.len();
    let mut operator = None;
    for (i, c) in function.char_indices() {
        match c {
            '<' if operator.is_none() => depth += 1,
            '>' if operator.is_none() => depth -= 1,
            '(' if depth == 0 && keyword(&function[..i]) => {}
            ')' if depth == 0 && function[..i].strip_suffix('(').is_some_and(keyword) => {}
            '(' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
        if operator.is_none() && depth == 0 && keyword(&function[..=i]) {
            operator = Some(i + 1 - "operator".len());
        }
    }
    let head = function[..end].trim();
    // A function template instance's demangled name starts with its return type
    // (`Chars<9> get_chars<9>`): gdb names the frame without it. After `operator`
    // (`X::operator unsigned int`), a space is part of the name.
    let limit = operator.unwrap_or(head.len()).min(head.len());
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in head[..limit].char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ' ' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    &head[start..]
}

/// Lane numbers as gdb writes them: runs `a-b` separated by spaces, in brackets unless
/// the list is a single number (`0`, `[0-63]`, `[1 3 5]`).
pub(crate) fn lane_ranges(lanes: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < lanes.len() {
        let mut j = i;
        while j + 1 < lanes.len() && lanes[j + 1] == lanes[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", lanes[i], lanes[j])
        } else {
            lanes[i].to_string()
        });
        i = j + 1;
    }
    match (lanes.len(), parts.len()) {
        (1, _) => parts.join(" "),
        _ => format!("[{}]", parts.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_ids_and_ranges() {
        let p = Place {
            dispatch: 1,
            group: [1, 0, 0],
            groups: [4, 1, 1],
            group_size: [100, 1, 1],
            wave: 1,
            wave_size: 64,
        };
        // two waves per group: group 1's second wave is the dispatch's fourth
        assert_eq!(p.thread(), 4);
        assert_eq!(p.wave_id(), "AMDGPU Wave 1:1:1:4 (1,0,0)/1");
        assert_eq!(p.lane_id(3), "AMDGPU Lane 1:1:1:4/3 (1,0,0)[67,0,0]");
        // lanes 36.. of the second wave have no work-item
        assert_eq!(p.work_item(36), None);
        assert_eq!(p.used_lanes(), 36);
        assert_eq!(lane_ranges(&[0]), "0");
        assert_eq!(lane_ranges(&[0, 1, 2, 3]), "[0-3]");
        assert_eq!(
            lane_ranges(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13]),
            "[1-10 13]"
        );
        assert_eq!(lane_ranges(&[1, 3]), "[1 3]");
        assert_eq!(frame_function("Chars<9> get_chars<9>(int)"), "get_chars<9>");
        assert_eq!(
            frame_function("__HIP_BlockIdx::operator()(unsigned int) const"),
            "__HIP_BlockIdx::operator()"
        );
        assert_eq!(
            frame_function("__HIP_Coordinates<__HIP_BlockIdx>::__X::operator unsigned int() const"),
            "__HIP_Coordinates<__HIP_BlockIdx>::__X::operator unsigned int"
        );
        assert_eq!(frame_function("ns::f(int)"), "ns::f");
        assert_eq!(frame_function("my_operator(int)"), "my_operator");
        assert_eq!(frame_function("bool operator<<int>(S)"), "operator<<int>");
        assert_eq!(wave_name("diverge(int const*, int*, int)"), "diverge");
        assert_eq!(wave_name("ns::kern<int>(int)"), "kern");
        assert_eq!(wave_name("bit_extract_kernel").len(), 16);
        assert!(wave_name("bit_extract_kernel").starts_with("bit_extract-"));
    }
}

/// A floating-point value as gdb prints it: C's `%.*g` with the precision gdb gives
/// the format (2 + the mantissa's bits × log10 2: 5 for half, 9 for float, 17 for
/// double), so `3.14f` prints `3.1400001` and `0.1` prints `0.10000000000000001`;
/// `inf`, `-inf`, `nan(0xMANTISSA)` and `-nan(0x...)` as gdb.
pub(crate) fn float_text(v: f64, size: usize) -> String {
    // The value as the format holds it, and its mantissa bits (for a NaN).
    let (v, prec, mantissa) = match size {
        2 => {
            let h = half::f16::from_f64(v);
            (f64::from(h), 5, u64::from(h.to_bits() & 0x3ff))
        }
        4 => (
            f64::from(v as f32),
            9,
            u64::from((v as f32).to_bits() & 0x7f_ffff),
        ),
        _ => (v, 17, v.to_bits() & 0xf_ffff_ffff_ffff),
    };
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v.is_nan() {
        return format!("{sign}nan({mantissa:#x})");
    }
    if v.is_infinite() {
        return format!("{sign}inf");
    }
    c_g(v, prec)
}

/// C's `%.{prec}g`.
fn c_g(v: f64, prec: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = format!("{:.*e}", prec - 1, v);
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if x < -4 || x >= prec as i32 {
        let sign = if x < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), x.abs())
    } else {
        let decimals = (prec as i32 - 1 - x).max(0) as usize;
        strip(&format!("{v:.decimals$}"))
    }
}

#[cfg(test)]
mod float_tests {
    use super::float_text;

    /// The expected texts are C's printf("%.9g") / ("%.17g") of the same values.
    #[test]
    fn floats_print_as_gdb() {
        assert_eq!(float_text(f64::from(2.71f32), 4), "2.71000004");
        assert_eq!(float_text(f64::from(3.25f32), 4), "3.25");
        assert_eq!(float_text(0.1, 8), "0.10000000000000001");
        assert_eq!(float_text(1.60218e-19, 8), "1.60218e-19");
        assert_eq!(float_text(2.0, 8), "2");
        assert_eq!(float_text(6.5, 4), "6.5");
        assert_eq!(float_text(-0.0, 4), "-0");
        assert_eq!(float_text(1e20, 8), "1e+20");
        assert_eq!(float_text(123456789.0, 4), "123456792");
        assert_eq!(float_text(1234567890.0, 4), "1.23456794e+09");
        assert_eq!(float_text(0.0001, 8), "0.0001");
        assert_eq!(float_text(0.00001, 8), "1.0000000000000001e-05");
        assert_eq!(float_text(f64::INFINITY, 8), "inf");
        assert_eq!(float_text(f64::NEG_INFINITY, 4), "-inf");
        assert_eq!(float_text(f64::from(f32::NAN), 4), "nan(0x400000)");
        assert_eq!(float_text(1.5, 2), "1.5");
        assert_eq!(float_text(0.1, 2), "0.099976");
    }
}
