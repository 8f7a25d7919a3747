//! The C/C++/OpenCL expression subset `print` and conditions take: a tokenizer and a
//! precedence-climbing parser producing [`Ast`].

use amdgpu_dwarf::AddressSpace;
/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ast {
    /// An integer literal.
    Int(u64),
    /// A floating-point literal.
    Float(f64),
    /// A character literal.
    Char(u8),
    /// A string literal (`"(23,0,0)/1"`): a char array with its NUL.
    Str(Vec<u8>),
    /// A name (`x`, `ns::x`).
    Name(String),
    /// A register or convenience variable (`$pc`, `$_lane`).
    Dollar(String),
    /// `a.b`
    Member(Box<Ast>, String),
    /// `a->b`
    Arrow(Box<Ast>, String),
    /// `a[i]`
    Index(Box<Ast>, Box<Ast>),
    /// `f(args)`: OpenCL's work-item functions.
    Call(String, Vec<Ast>),
    /// A unary operator.
    Unary(UnOp, Box<Ast>),
    /// A binary operator.
    Binary(BinOp, Box<Ast>, Box<Ast>),
    /// `c ? a : b`
    Cond(Box<Ast>, Box<Ast>, Box<Ast>),
    /// `(type) e`
    Cast(TypeName, Box<Ast>),
    /// `sizeof e`
    SizeofExpr(Box<Ast>),
    /// `sizeof (type)`
    SizeofType(TypeName),
    /// `alignof (type)`, `_Alignof (type)`
    AlignofType(TypeName),
    /// `a = b`
    Assign(Box<Ast>, Box<Ast>),
    /// ROCgdb's address space operator: `private_lane#0x44`, `local#16`.
    Aspace(AddressSpace, Box<Ast>),
}

/// The address space ROCgdb's `NAME#ADDR` names.
pub(crate) fn aspace_named(name: &str) -> Option<AddressSpace> {
    Some(match name {
        "global" => AddressSpace::Global,
        "generic" => AddressSpace::Generic,
        "region" => AddressSpace::Region,
        "local" => AddressSpace::Local,
        "private_lane" => AddressSpace::PrivateLane,
        "private_wave" => AddressSpace::PrivateWave,
        _ => return None,
    })
}

/// The prefix ROCgdb shows before an address in `space` (none for global and generic
/// addresses, which are the process's).
pub(crate) fn aspace_prefix(space: AddressSpace) -> &'static str {
    match space {
        AddressSpace::Global | AddressSpace::Generic => "",
        AddressSpace::Region => "region#",
        AddressSpace::Local => "local#",
        AddressSpace::PrivateLane | AddressSpace::PrivateLaneN(_) => "private_lane#",
        AddressSpace::PrivateWave => "private_wave#",
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddrOf,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
    /// gdb's `x@N`: N objects from x's place on.
    At,
}

/// A type written in a cast, `sizeof` or `alignof`: a base type name (or C++'s
/// `decltype(e)`) and pointer levels.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypeName {
    /// The base type as written, normalised (`unsigned int`, `float`, `struct S`).
    pub base: String,
    /// `*`s after it.
    pub pointers: u32,
    /// `decltype(e)`: the type of `e` (then `base` is `decltype`).
    pub decltype: Option<Box<Ast>>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(u64),
    Float(f64),
    Char(u8),
    Str(Vec<u8>),
    Ident(String),
    Dollar(String),
    Punct(&'static str),
}

const PUNCTS: [&str; 36] = [
    "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "::", "+", "-", "*", "/", "%", "<", ">",
    "&", "|", "^", "!", "~", "(", ")", "[", "]", ".", "?", ":", "=", ",", "{", "}", "@", "#", ";",
];

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                // an exponent's sign belongs to the number
                if (b[i] == b'e' || b[i] == b'E')
                    && !s[start..i].starts_with("0x")
                    && matches!(b.get(i + 1), Some(b'+' | b'-'))
                {
                    i += 1;
                }
                i += 1;
            }
            out.push(number(&s[start..i])?);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[start..i].to_string()));
        } else if c == b'$' {
            let start = i + 1;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Dollar(s[start..i].to_string()));
        } else if c == b'"' {
            let (text, len) =
                string_literal(&b[i..]).ok_or("Unterminated string in expression.")?;
            out.push(Tok::Str(text));
            i += len;
        } else if c == b'\'' {
            let (ch, len) = char_literal(&b[i..]).ok_or("Unmatched single quote.")?;
            out.push(Tok::Char(ch));
            i += len;
        } else if let Some(p) = PUNCTS.iter().find(|p| s[i..].starts_with(**p)) {
            out.push(Tok::Punct(p));
            i += p.len();
        } else {
            return Err(format!("Invalid character '{}' in expression.", c as char));
        }
    }
    Ok(out)
}

/// A string literal at the start of `b` (`"..."` with `\\`, `\"`, `\n`, `\t`
/// escapes): its bytes and the literal's length.
fn string_literal(b: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        match *b.get(i)? {
            b'"' => return Some((out, i + 1)),
            b'\\' => {
                out.push(match *b.get(i + 1)? {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'0' => 0,
                    other => other,
                });
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

fn char_literal(b: &[u8]) -> Option<(u8, usize)> {
    match b {
        [b'\'', b'\\', e, b'\'', ..] => Some((
            match e {
                b'n' => b'\n',
                b't' => b'\t',
                b'0' => 0,
                b'r' => b'\r',
                other => *other,
            },
            4,
        )),
        [b'\'', c, b'\'', ..] => Some((*c, 3)),
        _ => None,
    }
}

fn number(t: &str) -> Result<Tok, String> {
    let bad = || format!("Invalid number \"{t}\".");
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        let h = h.trim_end_matches(['u', 'l']);
        return u64::from_str_radix(h, 16).map(Tok::Int).map_err(|_| bad());
    }
    if lower.contains(['.', 'e']) || lower.ends_with('f') {
        return lower
            .trim_end_matches('f')
            .parse()
            .map(Tok::Float)
            .map_err(|_| bad());
    }
    let d = lower.trim_end_matches(['u', 'l']);
    if d.len() > 1 && d.starts_with('0') {
        return u64::from_str_radix(&d[1..], 8)
            .map(Tok::Int)
            .map_err(|_| bad());
    }
    d.parse().map(Tok::Int).map_err(|_| bad())
}

/// Words that start a type name in a cast.
const TYPE_WORDS: [&str; 31] = [
    "int", "unsigned", "signed", "char", "short", "long", "float", "double", "bool", "_Bool",
    "void", "const", "volatile", "struct", "union", "uint", "ulong", "uchar", "ushort", "half",
    "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
    "uint64_t", "enum", "decltype",
];

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn peek_punct(&self) -> Option<&'static str> {
        match self.peek() {
            Some(Tok::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek_punct() == Some(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(format!(
                "A syntax error in expression, near `{}'.",
                self.rest()
            ))
        }
    }

    fn rest(&self) -> String {
        self.toks[self.pos.min(self.toks.len())..]
            .iter()
            .map(|t| match t {
                Tok::Int(v) => v.to_string(),
                Tok::Float(v) => v.to_string(),
                Tok::Char(c) => format!("'{}'", *c as char),
                Tok::Str(s) => format!("\"{}\"", String::from_utf8_lossy(s)),
                Tok::Ident(s) => s.clone(),
                Tok::Dollar(s) => format!("${s}"),
                Tok::Punct(p) => p.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn assignment(&mut self) -> Result<Ast, String> {
        let lhs = self.conditional()?;
        if self.eat("=") {
            let rhs = self.assignment()?;
            return Ok(Ast::Assign(Box::new(lhs), Box::new(rhs)));
        }
        Ok(lhs)
    }

    fn conditional(&mut self) -> Result<Ast, String> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.assignment()?;
            self.expect(":")?;
            let b = self.conditional()?;
            return Ok(Ast::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn binary(&mut self, min: u8) -> Result<Ast, String> {
        let mut lhs = self.unary()?;
        while let Some((op, prec)) = self.peek_punct().and_then(binop) {
            if prec < min {
                break;
            }
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = Ast::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn is_type_start(&self) -> bool {
        matches!(self.toks.get(self.pos + 1), Some(Tok::Ident(w)) if TYPE_WORDS.contains(&w.as_str()))
    }

    fn type_name(&mut self) -> Result<TypeName, String> {
        if matches!(self.peek(), Some(Tok::Ident(w)) if w == "decltype") {
            self.pos += 1;
            self.expect("(")?;
            let e = self.assignment()?;
            self.expect(")")?;
            let mut pointers = 0;
            while self.eat("*") {
                pointers += 1;
            }
            return Ok(TypeName {
                base: "decltype".into(),
                pointers,
                decltype: Some(Box::new(e)),
            });
        }
        let mut words = Vec::new();
        while let Some(Tok::Ident(w)) = self.peek() {
            if matches!(w.as_str(), "const" | "volatile") {
                self.pos += 1;
                continue;
            }
            words.push(w.clone());
            self.pos += 1;
        }
        let mut pointers = 0;
        while self.eat("*") {
            pointers += 1;
        }
        if words.is_empty() {
            return Err("A syntax error in expression: a type name is expected.".into());
        }
        Ok(TypeName {
            base: words.join(" "),
            pointers,
            decltype: None,
        })
    }

    fn unary(&mut self) -> Result<Ast, String> {
        let op = match self.peek_punct() {
            Some("-") => Some(UnOp::Neg),
            Some("+") => Some(UnOp::Plus),
            Some("!") => Some(UnOp::Not),
            Some("~") => Some(UnOp::BitNot),
            Some("*") => Some(UnOp::Deref),
            Some("&") => Some(UnOp::AddrOf),
            _ => None,
        };
        if let Some(op) = op {
            self.pos += 1;
            return Ok(Ast::Unary(op, Box::new(self.unary()?)));
        }
        if self.peek_punct() == Some("(") && self.is_type_start() {
            self.pos += 1;
            let t = self.type_name()?;
            self.expect(")")?;
            return Ok(Ast::Cast(t, Box::new(self.unary()?)));
        }
        if matches!(self.peek(), Some(Tok::Ident(w)) if w == "sizeof") {
            self.pos += 1;
            if self.peek_punct() == Some("(") && self.is_type_start() {
                self.pos += 1;
                let t = self.type_name()?;
                self.expect(")")?;
                return Ok(Ast::SizeofType(t));
            }
            return Ok(Ast::SizeofExpr(Box::new(self.unary()?)));
        }
        if matches!(self.peek(), Some(Tok::Ident(w)) if w == "alignof" || w == "_Alignof") {
            self.pos += 1;
            if self.peek_punct() == Some("(") && self.is_type_start() {
                self.pos += 1;
                let t = self.type_name()?;
                self.expect(")")?;
                return Ok(Ast::AlignofType(t));
            }
            return Err(
                "A syntax error in expression: alignof takes a type in parentheses.".into(),
            );
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Ast, String> {
        let mut e = self.primary()?;
        loop {
            if self.eat("[") {
                let i = self.assignment()?;
                self.expect("]")?;
                e = Ast::Index(Box::new(e), Box::new(i));
            } else if self.eat(".") {
                e = Ast::Member(Box::new(e), self.ident()?);
            } else if self.eat("->") {
                e = Ast::Arrow(Box::new(e), self.ident()?);
            } else if self.peek_punct() == Some("(") && matches!(e, Ast::Name(_)) {
                self.pos += 1;
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.assignment()?);
                        if self.eat(")") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                let Ast::Name(n) = e else { unreachable!() };
                e = Ast::Call(n, args);
            } else {
                return Ok(e);
            }
        }
    }

    fn ident(&mut self) -> Result<String, String> {
        match self.toks.get(self.pos) {
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                Ok(s.clone())
            }
            _ => Err(format!(
                "A syntax error in expression, near `{}'.",
                self.rest()
            )),
        }
    }

    fn primary(&mut self) -> Result<Ast, String> {
        let Some(t) = self.toks.get(self.pos).cloned() else {
            return Err("A syntax error in expression, near `'.".into());
        };
        self.pos += 1;
        Ok(match t {
            Tok::Int(v) => Ast::Int(v),
            Tok::Float(v) => Ast::Float(v),
            Tok::Char(c) => Ast::Char(c),
            Tok::Str(s) => Ast::Str(s),
            // gdb's convenience functions: `$_streq(a, b)`, `$_strlen(s)`
            Tok::Dollar(s) if self.peek_punct() == Some("(") => {
                self.pos += 1;
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.assignment()?);
                        if self.eat(")") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Ast::Call(format!("${s}"), args)
            }
            Tok::Dollar(s) => Ast::Dollar(s),
            Tok::Ident(s) if aspace_named(&s).is_some() && self.eat("#") => {
                let space = aspace_named(&s).unwrap_or(AddressSpace::Generic);
                Ast::Aspace(space, Box::new(self.unary()?))
            }
            Tok::Ident(s) => {
                let mut name = s;
                while self.eat("::") {
                    name = format!("{name}::{}", self.ident()?);
                }
                match name.as_str() {
                    "true" => Ast::Int(1),
                    "false" => Ast::Int(0),
                    _ => Ast::Name(name),
                }
            }
            Tok::Punct("(") => {
                let e = self.assignment()?;
                self.expect(")")?;
                e
            }
            Tok::Punct(_) => {
                self.pos -= 1;
                return Err(format!(
                    "A syntax error in expression, near `{}'.",
                    self.rest()
                ));
            }
        })
    }
}

fn binop(p: &str) -> Option<(BinOp, u8)> {
    use BinOp::*;
    Some(match p {
        "||" => (Or, 1),
        "&&" => (And, 2),
        "|" => (BitOr, 3),
        "^" => (BitXor, 4),
        "&" => (BitAnd, 5),
        "==" => (Eq, 6),
        "!=" => (Ne, 6),
        "<" => (Lt, 7),
        "<=" => (Le, 7),
        ">" => (Gt, 7),
        ">=" => (Ge, 7),
        "<<" => (Shl, 8),
        ">>" => (Shr, 8),
        "+" => (Add, 9),
        "-" => (Sub, 9),
        "*" => (Mul, 10),
        "/" => (Div, 10),
        "%" => (Rem, 10),
        "@" => (At, 11),
        _ => return None,
    })
}

/// Parses an expression.
pub(crate) fn parse(text: &str) -> Result<Ast, String> {
    let toks = tokenize(text)?;
    if toks.is_empty() {
        return Err("Argument required (expression to compute).".into());
    }
    let mut p = Parser { toks, pos: 0 };
    let e = p.assignment()?;
    if p.pos < p.toks.len() {
        return Err(format!(
            "A syntax error in expression, near `{}'.",
            p.rest()
        ));
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_parse_with_c_precedence() {
        let e = parse("a + b * c[2]->d.e").unwrap();
        assert_eq!(
            e,
            Ast::Binary(
                BinOp::Add,
                Box::new(Ast::Name("a".into())),
                Box::new(Ast::Binary(
                    BinOp::Mul,
                    Box::new(Ast::Name("b".into())),
                    Box::new(Ast::Member(
                        Box::new(Ast::Arrow(
                            Box::new(Ast::Index(
                                Box::new(Ast::Name("c".into())),
                                Box::new(Ast::Int(2))
                            )),
                            "d".into()
                        )),
                        "e".into()
                    ))
                ))
            )
        );
        assert!(matches!(
            parse("(unsigned int *) p").unwrap(),
            Ast::Cast(TypeName { pointers: 1, .. }, _)
        ));
        assert!(matches!(parse("(x)").unwrap(), Ast::Name(_)));
        assert!(matches!(
            parse("$_lane == 15 && lid > 3").unwrap(),
            Ast::Binary(BinOp::And, ..)
        ));
        assert!(matches!(parse("x = 5").unwrap(), Ast::Assign(..)));
        assert!(matches!(parse("c ? 1 : 2").unwrap(), Ast::Cond(..)));
        assert!(matches!(parse("get_global_id(0)").unwrap(), Ast::Call(..)));
        assert_eq!(parse("0x10").unwrap(), Ast::Int(16));
        assert_eq!(parse("1.5e3").unwrap(), Ast::Float(1500.0));
        assert_eq!(parse("'a'").unwrap(), Ast::Char(b'a'));
        assert_eq!(parse("ns::x").unwrap(), Ast::Name("ns::x".into()));
        assert!(parse("a +").is_err());
        assert!(parse("(a").is_err());
        assert!(parse("a b").is_err());
        assert!(parse("").is_err());
        assert!(parse("`").is_err());
    }
}
