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
    function.split('(').next().unwrap_or(function).trim()
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
        assert_eq!(wave_name("diverge(int const*, int*, int)"), "diverge");
        assert_eq!(wave_name("ns::kern<int>(int)"), "kern");
        assert_eq!(wave_name("bit_extract_kernel").len(), 16);
        assert!(wave_name("bit_extract_kernel").starts_with("bit_extract-"));
    }
}
