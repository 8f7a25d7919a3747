//! The members of a struct and the elements of an array, as the variables view expands
//! them, read from the text the front end prints for the whole value (gdb's
//! `{a = 1, b = {2, 3}}`, `{0 <repeats 16 times>, 7}`, `(T &) @0x10: {x = 1}`), each
//! with the expression that names it (`s.b`, `a[3]`) for `setVariable` and for its own
//! members.

/// The most members or elements listed for one value.
const MAX_ITEMS: usize = 10_000;

/// One member or element of an aggregate value.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Item {
    /// As the variables view names it: the member's name, or `[INDEX]`.
    pub name: String,
    /// The expression naming it, given the expression of the whole value (`None`: it
    /// has none, as a base class's part).
    pub expr: Option<String>,
    /// Its value as the front end printed it.
    pub value: String,
}

/// Where a scan of printed text is with respect to quoted text (a string `"..."` or a
/// character `'.'`, with backslash escapes).
#[derive(Default)]
struct Quotes {
    quote: Option<char>,
    escaped: bool,
}

impl Quotes {
    /// Takes the next character; whether it is part of a quotation (its quotes
    /// included), which a scan passes over.
    fn inside(&mut self, c: char) -> bool {
        match self.quote {
            Some(q) => {
                match c {
                    _ if self.escaped => self.escaped = false,
                    '\\' => self.escaped = true,
                    c if c == q => self.quote = None,
                    _ => {}
                }
                true
            }
            None if c == '"' || c == '\'' => {
                self.quote = Some(c);
                true
            }
            None => false,
        }
    }
}

/// Where the brace opening `s` (its first character) closes, skipping quoted text.
fn closing(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quotes = Quotes::default();
    for (i, c) in s.char_indices() {
        if quotes.inside(c) {
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The text between the braces of an aggregate value (a reference's `(T &) @ADDR: `
/// before them is passed over); `None` for anything else (a scalar, a pointer, a
/// string, a function pointer `{int (int)} 0x1000 <f>`).
fn body(value: &str) -> Option<&str> {
    let v = value.trim();
    let v = if v.starts_with('(') || v.starts_with('@') {
        &v[v.find(": {")? + 2..]
    } else {
        v
    };
    if !v.starts_with('{') || closing(v)? != v.len() - 1 {
        return None;
    }
    Some(&v[1..v.len() - 1])
}

/// The parts of an aggregate's body: split at the `, ` that are outside braces,
/// parentheses, angle brackets and quotes.
fn parts(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let mut quotes = Quotes::default();
    let bytes = body.as_bytes();
    for (i, c) in body.char_indices() {
        if quotes.inside(c) {
            continue;
        }
        match c {
            '{' | '(' | '[' | '<' => depth += 1,
            '}' | ')' | ']' | '>' => depth = (depth - 1).max(0),
            ',' if depth == 0 && bytes.get(i + 1) == Some(&b' ') => {
                out.push(&body[start..i]);
                start = i + 2;
            }
            _ => {}
        }
    }
    if start < body.len() {
        out.push(&body[start..]);
    }
    out
}

/// `NAME = VALUE` as a struct's part, `None` for an array's element.
fn member(part: &str) -> Option<(&str, &str)> {
    let (name, value) = part.split_once(" = ")?;
    let ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_<>: ~".contains(c));
    ok.then_some((name, value))
}

/// An element with gdb's `<repeats N times>`: the element and N.
fn repeated(part: &str) -> Option<(&str, usize)> {
    let (value, n) = part.strip_suffix(" times>")?.rsplit_once(" <repeats ")?;
    Some((value, n.parse().ok()?))
}

/// The members or elements of `value` (empty for a value that has none), `expr` being
/// the expression of the whole value.
pub(super) fn items(value: &str, expr: Option<&str>) -> Vec<Item> {
    let Some(body) = body(value) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut index = 0usize;
    for part in parts(body) {
        if out.len() >= MAX_ITEMS || part == "..." {
            break;
        }
        if let Some((name, value)) = member(part) {
            // `static count = 56` is named as `s.count`; a base class's part
            // (`<Base> = {...}`) has no expression of its own.
            let field = name.strip_prefix("static ").unwrap_or(name);
            let plain = field.chars().all(|c| c.is_alphanumeric() || c == '_');
            out.push(Item {
                name: name.to_string(),
                expr: expr.filter(|_| plain).map(|e| format!("{e}.{field}")),
                value: value.to_string(),
            });
            continue;
        }
        let (value, n) = repeated(part).unwrap_or((part, 1));
        for _ in 0..n.min(MAX_ITEMS - out.len()) {
            out.push(Item {
                name: format!("[{index}]"),
                expr: expr.map(|e| format!("{e}[{index}]")),
                value: value.to_string(),
            });
            index += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[Item]) -> Vec<(&str, Option<&str>, &str)> {
        v.iter()
            .map(|i| (i.name.as_str(), i.expr.as_deref(), i.value.as_str()))
            .collect()
    }

    /// Structs, nested values, arrays with repeats and quoted commas and braces.
    #[test]
    fn members_and_elements() {
        let v = items("{a = 1, b = {2, 3}, c = 44 ',', s = \"x, {y}\"}", Some("s"));
        assert_eq!(
            names(&v),
            [
                ("a", Some("s.a"), "1"),
                ("b", Some("s.b"), "{2, 3}"),
                ("c", Some("s.c"), "44 ','"),
                ("s", Some("s.s"), "\"x, {y}\""),
            ]
        );
        let v = items("{7, 0 <repeats 3 times>, 9}", Some("a"));
        assert_eq!(
            names(&v),
            [
                ("[0]", Some("a[0]"), "7"),
                ("[1]", Some("a[1]"), "0"),
                ("[2]", Some("a[2]"), "0"),
                ("[3]", Some("a[3]"), "0"),
                ("[4]", Some("a[4]"), "9"),
            ]
        );
        let v = items("{{x = 1}, {x = 2}}", Some("p"));
        assert_eq!(names(&v)[1], ("[1]", Some("p[1]"), "{x = 2}"));
    }

    /// References, base classes and static members; values without members.
    #[test]
    fn references_bases_and_scalars() {
        let v = items(
            "(const S &) @0x2000: {<Base> = {k = 1}, m = 2, static count = 56}",
            Some("r"),
        );
        assert_eq!(
            names(&v),
            [
                ("<Base>", None, "{k = 1}"),
                ("m", Some("r.m"), "2"),
                ("static count", Some("r.count"), "56"),
            ]
        );
        for scalar in [
            "5",
            "(int *) 0x1000",
            "\"abc\"",
            "{int (int)} 0x1000 <f>",
            "<optimized out>",
            "{}",
        ] {
            assert!(items(scalar, Some("x")).is_empty(), "{scalar}");
        }
    }
}
