//! RFC 8601 `Authentication-Results` fields read into values: who wrote each (its authserv-id) and each method's result with its properties; pure, lenient and bounded.
//!
//! Anyone can write this header, so nothing here decides what to believe: the mailroom trusts
//! only the authserv-ids the GM names (`mailroom::sender_check`). The reading never fails: a
//! part it cannot make sense of is skipped up to the next `;`, and its work is bounded by the
//! caps below however large or hostile the field (the mail's size is capped before it).

/// Fields read per mail: the MTA in front of us prepends its own, so the first ones are the
/// ones that matter; a mail with hundreds of them costs no more than this many.
const MAX_HEADERS: usize = 16;
/// Bytes of one field read; real ones are a few hundred.
const MAX_BYTES: usize = 8 * 1024;
/// Results kept per field (`dkim=...; spf=...; ...`).
const MAX_RESULTS: usize = 32;
/// Properties kept per result (`header.d=...`).
const MAX_PROPS: usize = 16;

/// One `Authentication-Results` field.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuthResults {
    /// The server that wrote it, lowercased; `None` when the field names none (Microsoft's
    /// Exchange Online writes results straight after the colon).
    pub authserv_id: Option<String>,
    /// Each method's result, in the order written; empty for `none`.
    pub results: Vec<MethodResult>,
}

/// One method's result: `dkim=pass header.d=example.org`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodResult {
    /// `dkim`, `spf`, `dmarc`, ... lowercased (a method version is dropped).
    pub method: String,
    /// `pass`, `fail`, `none`, ... lowercased.
    pub result: String,
    /// The `reason=` value, if any.
    pub reason: Option<String>,
    /// `ptype.property` (lowercased) and its value as written: `("header.d", "example.org")`;
    /// a bare `key=value` that is not one (Microsoft's `action=none`) is kept under its key.
    pub props: Vec<(String, String)>,
}

impl MethodResult {
    /// The first value of a property, e.g. `header.from`.
    pub fn prop(&self, key: &str) -> Option<&str> {
        self.props
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl AuthResults {
    /// The results of one method (lowercase name).
    pub fn of<'a>(&'a self, method: &'a str) -> impl Iterator<Item = &'a MethodResult> + 'a {
        self.results.iter().filter(move |r| r.method == method)
    }
}

/// Reads the first `MAX_HEADERS` fields (raw values, folding and all).
pub(super) fn parse_all<'a>(fields: impl Iterator<Item = &'a [u8]>) -> Vec<AuthResults> {
    fields.take(MAX_HEADERS).map(parse).collect()
}

/// Reads one field's value (what follows `Authentication-Results:`). Never panics.
fn parse(field: &[u8]) -> AuthResults {
    let mut c = Cursor {
        s: &field[..field.len().min(MAX_BYTES)],
        i: 0,
    };
    let mut out = AuthResults::default();
    c.skip_cfws();
    let start = c.i;
    // An authserv-id is a value never followed by `=`; a field that starts with `method=`
    // has none (Exchange Online), and its first result needs no `;` before it.
    let mut needs_semicolon = true;
    match c.value() {
        Some(id) if !c.followed_by_equals() && !id.contains('=') => {
            out.authserv_id = Some(id.to_ascii_lowercase());
            c.skip_version();
        }
        _ => {
            c.i = start;
            needs_semicolon = false;
        }
    }
    loop {
        c.skip_cfws();
        if c.at_end() || out.results.len() >= MAX_RESULTS {
            break;
        }
        if needs_semicolon && !c.eat(b';') {
            c.skip_to_semicolon();
            continue;
        }
        needs_semicolon = true;
        if let Some(result) = resinfo(&mut c) {
            out.results.push(result);
        }
    }
    out
}

/// One `method=result [reason=...] [ptype.property=value ...]`, the cursor left at the next
/// `;` or the end; `None` for `none` or what cannot be read.
fn resinfo(c: &mut Cursor<'_>) -> Option<MethodResult> {
    c.skip_cfws();
    let Some(method) = c.keyword() else {
        c.skip_to_semicolon();
        return None;
    };
    c.skip_cfws();
    if c.eat(b'/') {
        // A method version (`dkim/1`): read past, not kept.
        c.skip_cfws();
        c.keyword();
        c.skip_cfws();
    }
    if !c.eat(b'=') {
        c.skip_to_semicolon();
        return None;
    }
    c.skip_cfws();
    let Some(result) = c.keyword() else {
        c.skip_to_semicolon();
        return None;
    };
    let mut out = MethodResult {
        method,
        result,
        reason: None,
        props: Vec::new(),
    };
    properties(c, &mut out);
    Some(out)
}

/// The reason and properties after a result, up to the next `;` or the end.
fn properties(c: &mut Cursor<'_>, out: &mut MethodResult) {
    loop {
        c.skip_cfws();
        if c.at_end() || c.peek() == Some(b';') {
            return;
        }
        let Some(ptype) = c.keyword() else {
            c.skip_one();
            continue;
        };
        c.skip_cfws();
        let key = if c.eat(b'.') {
            c.skip_cfws();
            let Some(property) = c.keyword() else {
                continue;
            };
            c.skip_cfws();
            format!("{ptype}.{property}")
        } else {
            ptype
        };
        if !c.eat(b'=') {
            continue;
        }
        c.skip_cfws();
        let Some(value) = c.value() else { continue };
        if key == "reason" {
            out.reason.get_or_insert(value);
        } else if out.props.len() < MAX_PROPS {
            out.props.push((key, value));
        }
    }
}

/// A position in a field's bytes. Every method either consumes a byte or leaves the cursor
/// where it was, and the loops above call one that consumes (or stop), so the reading is
/// linear in the field's (capped) length.
struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        if hit {
            self.i += 1;
        }
        hit
    }

    /// Whitespace (folding included) and comments, nested ones too: `(sender IP is ...)`.
    fn skip_cfws(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => self.i += 1,
                b'(' => self.skip_comment(),
                _ => return,
            }
        }
    }

    /// A comment from its `(` to its matching `)` (or the end), `\` quoting a byte. A depth
    /// counter, not recursion: a hostile field of 8,000 `(` costs no stack.
    fn skip_comment(&mut self) {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            self.i += 1;
            match b {
                b'\\' => self.i += 1,
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
        self.i = self.i.min(self.s.len());
    }

    /// A keyword (letters, digits, `-`, `_`), lowercased.
    fn keyword(&mut self) -> Option<String> {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            self.i += 1;
        }
        (self.i > start)
            .then(|| String::from_utf8_lossy(&self.s[start..self.i]).to_ascii_lowercase())
    }

    /// A value: a quoted string (its quotes and escapes undone), else a run of bytes up to
    /// whitespace, `;`, a comment or a quote (so `user@example.org` and `abc=` are one).
    fn value(&mut self) -> Option<String> {
        if self.eat(b'"') {
            let mut out = Vec::new();
            while let Some(b) = self.peek() {
                self.i += 1;
                match b {
                    b'"' => break,
                    b'\\' => {
                        if let Some(next) = self.peek() {
                            out.push(next);
                            self.i += 1;
                        }
                    }
                    _ => out.push(b),
                }
            }
            return Some(String::from_utf8_lossy(&out).into_owned());
        }
        let start = self.i;
        while self.peek().is_some_and(|b| !b" \t\r\n;()\"".contains(&b)) {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// Whether the next thing past comments and whitespace is `=` (the cursor stays).
    fn followed_by_equals(&mut self) -> bool {
        let here = self.i;
        self.skip_cfws();
        let yes = self.peek() == Some(b'=');
        self.i = here;
        yes
    }

    /// The version number that may follow the authserv-id (`example.net 1; ...`).
    fn skip_version(&mut self) {
        let here = self.i;
        self.skip_cfws();
        let start = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        let ends = matches!(
            self.peek(),
            None | Some(b';' | b' ' | b'\t' | b'\r' | b'\n' | b'(')
        );
        if self.i == start || !ends {
            self.i = here;
        }
    }

    /// Past what cannot be read, to the next `;` outside comments and quotes (or the end).
    fn skip_to_semicolon(&mut self) {
        loop {
            self.skip_cfws();
            match self.peek() {
                None | Some(b';') => return,
                _ => self.skip_one(),
            }
        }
    }

    /// One value, or one byte when none starts here (a stray `)` or `=`).
    fn skip_one(&mut self) {
        if self.value().is_none() {
            self.i += 1;
        }
    }
}

#[cfg(test)]
mod tests;
