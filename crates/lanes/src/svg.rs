//! The divergence picture: where the lanes of a wave were, instruction after instruction,
//! drawn as SVG.
//!
//! Lanes go down, the wave's executed instructions go across. A lane that executes an
//! instruction (it is in the conceptual active mask) is coloured by the source line of that
//! instruction; a lane that waits (divergent) is grey; a lane that has finished, is outside
//! the grid or was not entered is left blank. A strip above each wave shows how many lanes
//! were active, and the legend maps colours to `file:line`. Divergence shows as a band
//! splitting into colour and grey, reconvergence as the grey filling with colour again.
//!
//! The input is a [`Trace`] per wave, recorded while single-stepping the wave from its
//! start to its end ([`crate::stepper::Stepper::record`] and
//! [`crate::stepper::Stepper::record_group`] make them). The SVG is written by hand: it is
//! plain text, with runs of equal cells merged into one rectangle, so a wave of 2000
//! instructions and 64 lanes stays a file of a few hundred kilobytes at most.

use crate::service::{LaneState, WaveLanes};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One executed instruction of a wave: where its lanes were before it executed, and the
/// source line of the instruction (the line of the active lanes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    /// Every lane of the wave, at the instruction's PC.
    pub lanes: WaveLanes,
    /// File and line of the instruction (`None` when the line table has none).
    pub line: Option<(String, u64)>,
}

/// The instructions one wave executed, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Work-group id.
    pub group: [u32; 3],
    /// Wave number in the work-group.
    pub wave: u32,
    /// Lanes per wave.
    pub wave_size: u32,
    /// One entry per executed instruction.
    pub steps: Vec<TraceStep>,
}

/// How to draw.
#[derive(Clone, Debug)]
pub struct SvgOptions {
    /// A title written above the picture (the kernel and target, say).
    pub title: String,
    /// About how wide the instruction axis should be, in pixels; an instruction gets
    /// between [`SvgOptions::min_cell_width`] and [`SvgOptions::max_cell_width`] pixels.
    pub plot_width: f64,
    /// The narrowest an instruction's column may be.
    pub min_cell_width: f64,
    /// The widest an instruction's column may be.
    pub max_cell_width: f64,
    /// The height of a lane's row.
    pub lane_height: f64,
    /// Source files, as (a suffix of the file name, the file's lines), to quote each line
    /// in the legend.
    pub sources: Vec<(String, Vec<String>)>,
    /// Where a breakpoint stopped: the wave, and how many instructions it had executed
    /// (the index of the stopped instruction in its trace). Marked on the picture.
    pub stop: Option<(u32, usize)>,
}

impl SvgOptions {
    /// Adds a source file (its name, or a suffix of it, and its text) for the legend.
    pub fn with_source(mut self, file: &str, text: &str) -> Self {
        self.sources
            .push((file.to_string(), text.lines().map(String::from).collect()));
        self
    }

    /// The text of `line` of `file` (trimmed), when a source file given matches.
    pub fn source_line(&self, file: &str, line: u64) -> Option<&str> {
        let (_, lines) = self
            .sources
            .iter()
            .find(|(suffix, _)| file.ends_with(suffix.as_str()) || suffix.ends_with(file))?;
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        lines.get(i).map(|l| l.trim())
    }
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            title: String::new(),
            plot_width: 1600.0,
            min_cell_width: 0.75,
            max_cell_width: 12.0,
            lane_height: 9.0,
            sources: Vec::new(),
            stop: None,
        }
    }
}

/// The colour of a waiting (divergent) lane.
pub const WAITING: &str = "#c4c4c4";
/// The colour of a lane the reconstruction could not place.
pub const UNKNOWN: &str = "#f2a1b4";
/// The colour of an active lane at an instruction without a source line.
pub const NO_LINE: &str = "#4d4d4d";

/// Colours for source lines: Kelly's colours of maximum contrast, in his order (so that
/// neighbouring lines differ most), without the greys and buff that would look like a
/// waiting lane; then generated hues.
const PALETTE: [&str; 16] = [
    // Okabe and Ito's colour-blind-safe set (without black), then Paul Tol's "muted"
    // scheme, ordered so that neighbours differ in lightness (by at least 26 of 255 in
    // luma) and adjacent lines stay apart for every kind of colour vision.
    "#0072b2", "#e69f00", "#009e73", "#56b4e9", "#d55e00", "#cc79a7", "#ddcc77", "#332288",
    "#88ccee", "#882255", "#999933", "#117733", "#44aa99", "#aa4499", "#cc6677", "#f0e442",
];

/// The colour of the `i`-th source line of the legend.
pub fn line_colour(i: usize) -> String {
    match PALETTE.get(i) {
        Some(c) => (*c).to_string(),
        None => {
            // Golden-angle hues, alternating lightness, past the palette.
            let h = (i as f64 * 137.508) % 360.0;
            let l = if i % 2 == 0 { 42.0 } else { 58.0 };
            hsl(h, 65.0, l)
        }
    }
}

fn hsl(h: f64, s: f64, l: f64) -> String {
    let (s, l) = (s / 100.0, l / 100.0);
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", to(r), to(g), to(b))
}

/// One entry of the legend: a source line, its colour, and how many of the drawn
/// instructions it covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegendEntry {
    /// File and line (`None`: instructions without a line).
    pub line: Option<(String, u64)>,
    /// Its colour.
    pub colour: String,
    /// Executed instructions of that line, over every trace.
    pub instructions: u64,
}

/// The source lines seen in `traces`, ordered by file and line, with their colours (the
/// instructions without a line last). The most executed lines get the first, most
/// distinct colours of the palette.
pub fn legend(traces: &[Trace]) -> Vec<LegendEntry> {
    let mut count: BTreeMap<Option<(String, u64)>, u64> = BTreeMap::new();
    for t in traces {
        for s in &t.steps {
            *count.entry(s.line.clone()).or_default() += 1;
        }
    }
    let mut ranked: Vec<(&Option<(String, u64)>, u64)> = count
        .iter()
        .filter(|(l, _)| l.is_some())
        .map(|(l, n)| (l, *n))
        .collect();
    // By count, most first; ties by line (the map's order), so colours are deterministic.
    ranked.sort_by_key(|r| std::cmp::Reverse(r.1));
    let rank: BTreeMap<&Option<(String, u64)>, usize> = ranked
        .iter()
        .enumerate()
        .map(|(i, (l, _))| (*l, i))
        .collect();
    let mut out: Vec<LegendEntry> = count
        .iter()
        .filter(|(l, _)| l.is_some())
        .map(|(l, n)| LegendEntry {
            line: l.clone(),
            colour: line_colour(rank.get(l).copied().unwrap_or(0)),
            instructions: *n,
        })
        .collect();
    if let Some(n) = count.get(&None) {
        out.push(LegendEntry {
            line: None,
            colour: NO_LINE.to_string(),
            instructions: *n,
        });
    }
    out
}

/// Names the time axis (instructions the wave executed), left of its ticks.
fn axis_label(body: &mut String, left: f64, y: f64) {
    let _ = writeln!(
        body,
        r#"<text x="{}" y="{}" class="t" text-anchor="end">instructions</text>"#,
        px(left - 6.0),
        px(y)
    );
}

/// Marks where the breakpoint stopped the wave: a dashed rule over its lanes at `x`,
/// labelled above them.
fn stop_marker(body: &mut String, x: f64, top: f64, height: f64) {
    let _ = writeln!(
        body,
        r##"<g class="stop"><line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#000000" stroke-width="1.5" stroke-dasharray="4 2"/><text x="{x}" y="{}" class="t" text-anchor="middle">stopped here</text></g>"##,
        px(top - 2.0),
        px(top + height + 2.0),
        px(top + height + 12.0),
        x = px(x)
    );
}

/// Escapes text for XML character data and attribute values.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// The last path component of a file name, for labels.
fn short(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

fn line_label(line: &Option<(String, u64)>) -> String {
    match line {
        Some((f, l)) => format!("{}:{l}", short(f)),
        None => "no line".to_string(),
    }
}

/// A tick spacing of 1, 2 or 5 times a power of ten giving about `target` pixels.
fn tick_step(cell: f64, target: f64) -> usize {
    let want = (target / cell).max(1.0);
    let mut p = 1usize;
    loop {
        for m in [1, 2, 5] {
            if (m * p) as f64 >= want {
                return m * p;
            }
        }
        p = p.saturating_mul(10);
        if p > 1 << 40 {
            return p;
        }
    }
}

/// Formats a number of pixels compactly.
fn px(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r}")
    }
}

/// The picture's geometry, in pixels.
struct Layout {
    /// Left of the plot (the labels are to its left).
    left: f64,
    /// Margin right of the plot.
    right: f64,
    /// Width of an instruction's column.
    cell: f64,
    /// Height of a lane's row.
    lh: f64,
    /// Width of the plot.
    plot_w: f64,
    /// Height of the active-lane strip.
    strip_h: f64,
    /// Space between two waves' blocks.
    gap: f64,
    /// Height of the instruction axis.
    axis_h: f64,
}

/// Draws the traces (one block per wave, stacked) as an SVG document.
pub fn render(traces: &[Trace], opts: &SvgOptions) -> String {
    let legend = legend(traces);
    let colour_of: BTreeMap<Option<(String, u64)>, String> = legend
        .iter()
        .map(|e| (e.line.clone(), e.colour.clone()))
        .collect();
    let longest = traces
        .iter()
        .map(|t| t.steps.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let cell = (opts.plot_width / longest as f64).clamp(opts.min_cell_width, opts.max_cell_width);
    let lay = Layout {
        left: 64.0,
        right: 16.0,
        cell,
        lh: opts.lane_height.max(1.0),
        plot_w: cell * longest as f64,
        strip_h: 28.0,
        gap: 26.0,
        axis_h: 30.0,
    };
    let mut y = 14.0;
    let title_h = if opts.title.is_empty() { 0.0 } else { 24.0 };
    y += title_h;

    let mut body = String::new();
    for t in traces {
        y = wave_block(&mut body, t, &lay, &colour_of, opts.stop, y);
    }
    let (width, y) = legend_block(&mut body, traces, &legend, opts, &lay, y);
    let height = y + lay.axis_h / 3.0;
    document(opts, &lay, (width, height), &body)
}

/// Draws a wave's block from `y` down: its header, the active-lane strip, the
/// instruction axis, a row per lane, and where the breakpoint `stop` stopped;
/// returns where the next block starts.
fn wave_block(
    body: &mut String,
    t: &Trace,
    lay: &Layout,
    colour_of: &BTreeMap<Option<(String, u64)>, String>,
    stop: Option<(u32, usize)>,
    mut y: f64,
) -> f64 {
    let (left, lh) = (lay.left, lay.lh);
    let _ = writeln!(
        body,
        r#"<text x="{}" y="{}" class="h">work-group ({}, {}, {}) wave {} — {} instructions, {} lanes</text>"#,
        px(left),
        px(y + 12.0),
        t.group[0],
        t.group[1],
        t.group[2],
        t.wave,
        t.steps.len(),
        t.wave_size
    );
    y += 20.0;
    active_strip(body, t, lay, y);
    y += lay.strip_h + 6.0;
    instruction_axis(body, t, lay, y);
    y += 20.0;
    let lanes_top = y;
    let _ = writeln!(
        body,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#ffffff" stroke="#999" stroke-width="0.5"/>"##,
        px(left),
        px(lanes_top),
        px(lay.plot_w),
        px(lh * t.wave_size as f64)
    );
    for lane in 0..t.wave_size {
        lane_row(body, t, lay, colour_of, lane, lanes_top);
    }
    // Every 8th lane boundary, a faint rule.
    for lane in (8..t.wave_size).step_by(8) {
        let ly = lanes_top + lh * lane as f64;
        let _ = writeln!(
            body,
            r##"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="#ffffff" stroke-width="1" opacity="0.8"/>"##,
            px(left),
            px(left + lay.plot_w),
            ly = px(ly)
        );
    }
    if let Some((_, at)) = stop.filter(|s| s.0 == t.wave) {
        let x = left + cell_x(lay, at.min(t.steps.len()));
        stop_marker(body, x, lanes_top, lh * t.wave_size as f64);
    }
    lanes_top + lh * t.wave_size as f64 + lay.gap
}

/// The offset of instruction column `i` from the plot's left.
fn cell_x(lay: &Layout, i: usize) -> f64 {
    lay.cell * i as f64
}

/// The strip at `strip_top` whose height at each instruction is the count of
/// active lanes.
fn active_strip(body: &mut String, t: &Trace, lay: &Layout, strip_top: f64) {
    let (left, cell, strip_h) = (lay.left, lay.cell, lay.strip_h);
    let _ = writeln!(
        body,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#f7f7f7"/>"##,
        px(left),
        px(strip_top),
        px(lay.plot_w),
        px(strip_h)
    );
    let mut path = String::new();
    for (i, s) in t.steps.iter().enumerate() {
        let n = s.lanes.active.count_ones() as f64;
        let h = strip_h * n / t.wave_size.max(1) as f64;
        let x0 = left + cell_x(lay, i);
        let _ = write!(
            path,
            "M{} {}h{}v{}h{}z",
            px(x0),
            px(strip_top + strip_h),
            px(cell),
            px(-h),
            px(-cell)
        );
    }
    let _ = writeln!(body, r##"<path d="{path}" fill="#6b6b6b"/>"##);
    let _ = writeln!(
        body,
        r#"<text x="{}" y="{}" class="l" text-anchor="end">active</text>"#,
        px(left - 6.0),
        px(strip_top + strip_h / 2.0 + 4.0)
    );
}

/// The instruction axis at `y`: ticks numbering the instructions, and its label.
fn instruction_axis(body: &mut String, t: &Trace, lay: &Layout, y: f64) {
    let step = tick_step(lay.cell, 90.0);
    let mut k = 0usize;
    while k <= t.steps.len() {
        let x = lay.left + cell_x(lay, k);
        let _ = writeln!(
            body,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#888" stroke-width="1"/><text x="{x}" y="{}" class="t" text-anchor="middle">{k}</text>"##,
            px(y + 12.0),
            px(y + 18.0),
            px(y + 10.0),
            x = px(x)
        );
        k += step;
    }
    axis_label(body, lay.left, y + 10.0);
}

/// The row of lane `lane` (the lanes start at `lanes_top`): runs of equal
/// colour as one rectangle each, and every 8th lane's label.
fn lane_row(
    body: &mut String,
    t: &Trace,
    lay: &Layout,
    colour_of: &BTreeMap<Option<(String, u64)>, String>,
    lane: u32,
    lanes_top: f64,
) {
    let (left, lh) = (lay.left, lay.lh);
    let ly = lanes_top + lh * lane as f64;
    let _ = write!(body, r#"<g class="lane" data-lane="{lane}">"#);
    let mut run: Option<(usize, &str)> = None;
    let colour_at = |i: usize| -> Option<&str> {
        let s = &t.steps[i];
        match s.lanes.lanes.get(lane as usize).map(|p| &p.state) {
            Some(LaneState::Active) => Some(
                colour_of
                    .get(&s.line)
                    .map(String::as_str)
                    .unwrap_or(NO_LINE),
            ),
            Some(LaneState::Divergent) => Some(WAITING),
            Some(LaneState::Unknown(_)) => Some(UNKNOWN),
            _ => None,
        }
    };
    for i in 0..=t.steps.len() {
        let c = if i < t.steps.len() {
            colour_at(i)
        } else {
            None
        };
        match (run, c) {
            (Some((_, rc)), Some(c)) if rc == c => {}
            _ => {
                if let Some((start, rc)) = run {
                    let _ = write!(
                        body,
                        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{rc}"/>"#,
                        px(left + cell_x(lay, start)),
                        px(ly),
                        px(cell_x(lay, i - start)),
                        px(lh)
                    );
                }
                run = c.map(|c| (i, c));
            }
        }
    }
    let _ = writeln!(body, "</g>");
    if lane % 8 == 0 || lane + 1 == t.wave_size {
        let _ = writeln!(
            body,
            r#"<text x="{}" y="{}" class="l" text-anchor="end">lane {lane}</text>"#,
            px(left - 6.0),
            px(ly + lh - 1.0)
        );
    }
}

/// A legend entry: colour, label, instruction count, quoted source.
type LegendRow = (String, String, String, String);

/// The legend from `y` down, in columns: a colour per source line (with the
/// line quoted when its source was given), then the colours of waiting,
/// absent and unknown lanes. Returns the picture's width and where the
/// legend ends.
fn legend_block(
    body: &mut String,
    traces: &[Trace],
    legend: &[LegendEntry],
    opts: &SvgOptions,
    lay: &Layout,
    mut y: f64,
) -> (f64, f64) {
    let left = lay.left;
    let _ = writeln!(
        body,
        r#"<text x="{}" y="{}" class="h">source lines (colour of the active lanes)</text>"#,
        px(left),
        px(y)
    );
    y += 10.0;
    let quotes = !opts.sources.is_empty();
    let col_w = if quotes { 400.0 } else { 200.0 };
    let width = (left + lay.plot_w + lay.right).max(left + 4.0 * col_w);
    let cols = (((width - left) / col_w).floor() as usize).max(1);
    let entries = legend_rows(traces, legend, opts);
    for (i, (c, label, n, quote)) in entries.iter().enumerate() {
        let x = left + col_w * (i % cols) as f64;
        let ey = y + 18.0 * (i / cols) as f64;
        let stroke = if c == "none" {
            r##" stroke="#888" stroke-width="1""##
        } else {
            ""
        };
        let fill = if c == "none" { "#ffffff" } else { c.as_str() };
        let _ = write!(
            body,
            r#"<g class="legend"><rect x="{}" y="{}" width="14" height="12" fill="{fill}"{stroke}/><text x="{}" y="{}" class="l">{}</text><text x="{}" y="{}" class="t">{}</text>"#,
            px(x),
            px(ey),
            px(x + 20.0),
            px(ey + 10.0),
            esc(label),
            px(x + 122.0),
            px(ey + 10.0),
            esc(n)
        );
        if !quote.is_empty() {
            let _ = write!(
                body,
                r#"<text x="{}" y="{}" class="q">{}</text>"#,
                px(x + 180.0),
                px(ey + 10.0),
                esc(quote)
            );
        }
        let _ = writeln!(body, "</g>");
    }
    y += 18.0 * entries.len().div_ceil(cols) as f64 + 8.0;
    (width, y)
}

/// The legend's rows: one per source line (its source quoted, shortened), then
/// waiting lanes, absent lanes, and unknown lanes when a trace has any.
fn legend_rows(traces: &[Trace], legend: &[LegendEntry], opts: &SvgOptions) -> Vec<LegendRow> {
    let mut entries: Vec<LegendRow> = legend
        .iter()
        .map(|e| {
            let quote = e
                .line
                .as_ref()
                .and_then(|(f, l)| opts.source_line(f, *l))
                .map(|q| {
                    if q.chars().count() > 36 {
                        format!("{}…", q.chars().take(35).collect::<String>())
                    } else {
                        q.to_string()
                    }
                })
                .unwrap_or_default();
            (
                e.colour.clone(),
                line_label(&e.line),
                format!("{} instr.", e.instructions),
                quote,
            )
        })
        .collect();
    let plain = |c: &str, label: &str| {
        (
            c.to_string(),
            label.to_string(),
            String::new(),
            String::new(),
        )
    };
    entries.push(plain(WAITING, "waiting (divergent)"));
    entries.push(plain("none", "finished / outside / not entered"));
    if traces.iter().any(|t| {
        t.steps.iter().any(|s| {
            s.lanes
                .lanes
                .iter()
                .any(|p| matches!(p.state, LaneState::Unknown(_)))
        })
    }) {
        entries.push(plain(UNKNOWN, "unknown"));
    }
    entries
}

/// The SVG document of `width` by `height`: the header, the style, the
/// background, the title, and `body`.
fn document(opts: &SvgOptions, lay: &Layout, (width, height): (f64, f64), body: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" shape-rendering="crispEdges">"#,
        w = px(width),
        h = px(height)
    );
    let _ = writeln!(
        out,
        "<style>text{{font-family:sans-serif;fill:#222}} .h{{font-size:13px;font-weight:bold}} .l{{font-size:11px}} .t{{font-size:10px;fill:#555}} .q{{font-size:10px;font-family:monospace;fill:#333}}</style>"
    );
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>"##,
        px(width),
        px(height)
    );
    if !opts.title.is_empty() {
        let _ = writeln!(out, "<title>{}</title>", esc(&opts.title));
        let _ = writeln!(
            out,
            r#"<text x="{}" y="22" class="h" style="font-size:15px">{}</text>"#,
            px(lay.left),
            esc(&opts.title)
        );
    }
    out.push_str(body);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::{LanePosition, PcKind};

    fn step(active: u64, waiting: u64, line: Option<u64>) -> TraceStep {
        let lanes = (0..4)
            .map(|l| {
                let state = if active >> l & 1 != 0 {
                    LaneState::Active
                } else if waiting >> l & 1 != 0 {
                    LaneState::Divergent
                } else {
                    LaneState::Finished
                };
                LanePosition {
                    lane: l,
                    state,
                    pc: None,
                    kind: PcKind::Current,
                }
            })
            .collect();
        TraceStep {
            lanes: WaveLanes {
                lanes,
                active,
                exec: active,
                pc: 0,
            },
            line: line.map(|l| ("a&b.cl".to_string(), l)),
        }
    }

    #[test]
    fn legend_orders_lines_and_counts_instructions() {
        let t = Trace {
            group: [0, 0, 0],
            wave: 0,
            wave_size: 4,
            steps: vec![
                step(0xf, 0, Some(9)),
                step(0x3, 0xc, Some(4)),
                step(0x3, 0xc, None),
                step(0xc, 0x3, Some(9)),
            ],
        };
        let l = legend(std::slice::from_ref(&t));
        let lines: Vec<_> = l.iter().map(|e| e.line.as_ref().map(|x| x.1)).collect();
        assert_eq!(lines, [Some(4), Some(9), None]);
        assert_eq!(l[1].instructions, 2);
        assert_ne!(l[0].colour, l[1].colour);
        let svg = render(&[t], &SvgOptions::default());
        // The file name is escaped, runs are merged: lane 0 is active, active, active,
        // waiting: three runs of one colour each would be wrong, so count the rects.
        assert!(svg.contains("a&amp;b.cl:4"), "{svg}");
        assert!(!svg.contains("a&b"));
        let lane0 = svg
            .split(r#"data-lane="0">"#)
            .nth(1)
            .and_then(|s| s.split("</g>").next())
            .expect("lane 0 row");
        // step 0: line 9, steps 1-2: line 4 and no line, step 3: waiting.
        assert_eq!(lane0.matches("<rect").count(), 4, "{lane0}");
        assert!(lane0.contains(WAITING));
        assert!(lane0.contains(NO_LINE));
    }

    #[test]
    fn generated_colours_are_distinct_past_the_palette() {
        let cs: std::collections::BTreeSet<String> = (0..40).map(line_colour).collect();
        assert_eq!(cs.len(), 40);
        assert!(cs.iter().all(|c| c.len() == 7 && c.starts_with('#')));
    }

    /// The picture marks where the breakpoint stopped (the stopped wave only, at the
    /// stopped instruction's column), names its time axis, and its first colours are
    /// the colour-blind-safe palette's, neighbours differing in lightness.
    #[test]
    fn stop_marker_axis_label_and_palette() {
        let t = |wave| Trace {
            group: [0, 0, 0],
            wave,
            wave_size: 4,
            steps: vec![step(0xf, 0, Some(9)), step(0x3, 0xc, Some(4))],
        };
        let opts = SvgOptions {
            stop: Some((1, 1)),
            ..SvgOptions::default()
        };
        let svg = render(&[t(0), t(1)], &opts);
        assert_eq!(svg.matches("stopped here").count(), 1, "{svg}");
        assert_eq!(svg.matches(">instructions</text>").count(), 2);
        let marker = svg.split(r#"<g class="stop"><line x1=""#).nth(1).unwrap();
        let x: f64 = marker.split('"').next().unwrap().parse().unwrap();
        assert_eq!(x, 64.0 + 12.0, "one instruction in, at 12 px a column");
        assert_eq!(line_colour(0), "#0072b2");
        let luma = |c: &str| {
            let v = |i: usize| u8::from_str_radix(&c[i..i + 2], 16).unwrap() as f64;
            0.299 * v(1) + 0.587 * v(3) + 0.114 * v(5)
        };
        for i in 0..15 {
            let (a, b) = (line_colour(i), line_colour(i + 1));
            assert!(
                (luma(&a) - luma(&b)).abs() > 25.0,
                "{a} and {b} are alike in lightness"
            );
        }
    }

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(tick_step(1.0, 90.0), 100);
        assert_eq!(tick_step(5.0, 90.0), 20);
        assert_eq!(tick_step(0.8, 90.0), 200);
        assert_eq!(tick_step(100.0, 90.0), 1);
    }
}
