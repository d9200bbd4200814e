//! `callfix render`: tool descriptions from `.txt` templates.
//!
//! A variable is `<NAME>` (an upper-case letter, then one or more of `A-Z 0-9 _`);
//! everything else in angle brackets (`<important-rules>`, `<example>`, `Vec<T>`,
//! `a < b > c`) is prose and stays as it is. `\<NAME>` is a literal `<NAME>`. Other
//! agents' syntaxes (`{NAME}`, `${name}`, `{{name}}`) render with the same
//! strictness. An unknown variable is an error with its `file:line:column` and the
//! nearest known name; values are inserted as they are and never scanned again, so
//! a rendered text holds no placeholder.

use std::collections::BTreeMap;
use std::fmt;

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::suggest;

/// How variables are written in a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `<NAME>` (upper case).
    Angle,
    /// `{NAME}` (an identifier).
    Brace,
    /// `${name}`.
    Dollar,
    /// `{{name}}`, with optional spaces inside.
    Mustache,
}

/// A placeholder that cannot be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The template file.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column.
    pub column: usize,
    /// What is wrong (`unknown variable <PLATFROM>`).
    pub what: String,
    /// The nearest known variable, as it would be written (`<PLATFORM>`).
    pub suggested: Option<String>,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {}:{}:{}",
            self.what, self.file, self.line, self.column
        )?;
        if let Some(s) = &self.suggested {
            write!(f, " (did you mean {s}?)")?;
        }
        Ok(())
    }
}

impl std::error::Error for TemplateError {}

/// Variable values, by name.
pub type Vars = BTreeMap<String, String>;

/// The text a variable's JSON value stands for (`--vars FILE`, and the Python
/// `vars` mapping): a string as it is, a number as written. Anything else is
/// no variable's value: the error is its JSON type (`boolean`, `array`, …).
pub fn var_text(value: serde_json::Value) -> Result<String, &'static str> {
    match value {
        serde_json::Value::String(s) => Ok(s),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        other => Err(crate::provider::json_type(&other)),
    }
}

/// One rendered template and what it used.
#[derive(Debug)]
pub struct Rendered {
    /// The rendered text.
    pub text: String,
    /// The variables the template used.
    pub used: Vec<String>,
}

/// Renders `template` (named `file` in errors). Every unknown variable is reported.
///
/// ```
/// use callfix::render::{Syntax, Vars, render};
///
/// let vars = Vars::from([("PLATFORM".to_owned(), "linux".to_owned())]);
/// let done = render("Runs on <PLATFORM>.", "read.txt", &vars, Syntax::Angle).unwrap();
/// assert_eq!(done.text, "Runs on linux.");
/// let errors = render("Runs on <OS>.", "read.txt", &vars, Syntax::Angle).unwrap_err();
/// assert!(errors[0].to_string().contains("OS"));
/// ```
pub fn render(
    template: &str,
    file: &str,
    vars: &Vars,
    syntax: Syntax,
) -> Result<Rendered, Vec<TemplateError>> {
    let mut out = String::with_capacity(template.len());
    let mut used = Vec::new();
    let mut errors = Vec::new();
    let mut rest = template;
    let mut offset = 0;
    // Where the last placeholder was, so each position is counted from there.
    let mut cursor = Cursor::default();
    while let Some(found) = next_placeholder(rest, syntax) {
        out.push_str(found.before);
        let whole = found.whole;
        if found.escaped {
            // `\<NAME>` → `<NAME>`: drop the backslash, keep the text.
            out.push_str(whole.strip_prefix('\\').unwrap_or(whole));
        } else {
            let (line, column) = cursor.advance(template, offset + found.before.len());
            let error = |what: String, suggested: Option<String>| TemplateError {
                file: file.to_owned(),
                line,
                column,
                what,
                suggested,
            };
            match vars.get(found.name) {
                // A value is inserted as it is; one that holds a placeholder would
                // leave that placeholder in the text.
                Some(value) => match next_placeholder(value, syntax).filter(|f| !f.escaped) {
                    Some(inner) => errors.push(error(
                        format!("the value of {whole} holds the placeholder {}", inner.whole),
                        None,
                    )),
                    None => {
                        out.push_str(value);
                        if !used.iter().any(|u| u == found.name) {
                            used.push(found.name.to_owned());
                        }
                    }
                },
                None => {
                    let suggested = suggest::closest(found.name, vars.keys().map(String::as_str))
                        .map(|s| written(s, syntax));
                    errors.push(error(format!("unknown variable {whole}"), suggested));
                    out.push_str(whole);
                }
            }
        }
        offset += found.before.len() + whole.len();
        rest = found.rest;
    }
    out.push_str(rest);
    if errors.is_empty() {
        Ok(Rendered { text: out, used })
    } else {
        Err(errors)
    }
}

/// The placeholders a template uses, in order (escapes excluded).
#[cfg(test)]
pub(crate) fn placeholders(template: &str, syntax: Syntax) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(found) = next_placeholder(rest, syntax) {
        if !found.escaped {
            names.push(found.name.to_owned());
        }
        rest = found.rest;
    }
    names
}

/// How a variable named `name` is written in `syntax`.
pub(crate) fn written(name: &str, syntax: Syntax) -> String {
    match syntax {
        Syntax::Angle => format!("<{name}>"),
        Syntax::Brace => format!("{{{name}}}"),
        Syntax::Dollar => format!("${{{name}}}"),
        Syntax::Mustache => format!("{{{{{name}}}}}"),
    }
}

struct Found<'t> {
    /// The text before the placeholder.
    before: &'t str,
    /// The placeholder as written, its escaping backslash included.
    whole: &'t str,
    name: &'t str,
    escaped: bool,
    /// The text after the placeholder.
    rest: &'t str,
}

/// The next placeholder (or escaped placeholder) in `text`.
fn next_placeholder(text: &str, syntax: Syntax) -> Option<Found<'_>> {
    let bytes = text.as_bytes();
    let open = match syntax {
        Syntax::Angle => b'<',
        Syntax::Brace | Syntax::Mustache => b'{',
        Syntax::Dollar => b'$',
    };
    for (at, _) in text.match_indices(char::from(open)) {
        if let Some((name_start, name_end, end)) = match_at(text, at, syntax) {
            let escaped = at.checked_sub(1).and_then(|p| bytes.get(p)) == Some(&b'\\');
            let start = if escaped { at - 1 } else { at };
            // All three are ASCII positions in `text`: none of these fails, and if
            // one did, the text would be left as it is.
            let (before, from) = text.split_at_checked(start)?;
            let (whole, rest) = from.split_at_checked(end - start)?;
            let name = text.get(name_start..name_end)?;
            return Some(Found {
                before,
                whole,
                name,
                escaped,
                rest,
            });
        }
    }
    None
}

/// A placeholder starting at `at`: (name start, name end, end).
fn match_at(text: &str, at: usize, syntax: Syntax) -> Option<(usize, usize, usize)> {
    let b = text.as_bytes();
    let (name_start, close): (usize, &str) = match syntax {
        Syntax::Angle => (at + 1, ">"),
        Syntax::Brace => {
            // `{{` belongs to mustache, not to a single-brace variable.
            if b.get(at + 1) == Some(&b'{')
                || at.checked_sub(1).and_then(|p| b.get(p)) == Some(&b'{')
            {
                return None;
            }
            (at + 1, "}")
        }
        Syntax::Dollar => {
            if b.get(at + 1) != Some(&b'{') {
                return None;
            }
            (at + 2, "}")
        }
        Syntax::Mustache => {
            if b.get(at + 1) != Some(&b'{') {
                return None;
            }
            (at + 2, "}}")
        }
    };
    let mut s = name_start;
    if syntax == Syntax::Mustache {
        while b.get(s) == Some(&b' ') {
            s += 1;
        }
    }
    let e = s + b
        .iter()
        .skip(s)
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    let name = text.get(s..e)?;
    let valid = match syntax {
        Syntax::Angle => {
            name.len() >= 2
                && name.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
                && name
                    .bytes()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
        }
        _ => name
            .as_bytes()
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_'),
    };
    if !valid {
        return None;
    }
    let mut after = e;
    if syntax == Syntax::Mustache {
        while b.get(after) == Some(&b' ') {
            after += 1;
        }
    }
    text.get(after..)?
        .starts_with(close)
        .then_some((s, e, after + close.len()))
}

/// 1-based line and column (in characters) of a byte offset.
/// A line and column in a text, moved forward from where it was last, so that
/// placing every placeholder of a template costs one pass over it.
#[derive(Default)]
struct Cursor {
    /// A byte offset, with the 0-based line and column (in characters) there.
    at: usize,
    line: usize,
    column: usize,
}

impl Cursor {
    /// The 1-based line and column of `offset` (a character boundary at or
    /// after the last one asked for) in `text`.
    fn advance(&mut self, text: &str, offset: usize) -> (usize, usize) {
        for c in text.get(self.at..offset).unwrap_or_default().chars() {
            if c == '\n' {
                self.line += 1;
                self.column = 0;
            } else {
                self.column += 1;
            }
        }
        self.at = self.at.max(offset);
        (self.line + 1, self.column + 1)
    }
}

/// The built-in variables: PLATFORM, ARCH, SHELL, CWD, HOME, DATE, YEAR.
pub fn builtins() -> Vars {
    let mut v = Vars::new();
    let platform = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    v.insert("PLATFORM".into(), platform.into());
    v.insert("ARCH".into(), std::env::consts::ARCH.into());
    let shell = std::env::var("SHELL")
        .ok()
        .and_then(|s| {
            Path::new(&s)
                .file_name()
                .and_then(|n| n.to_str())
                .map(str::to_owned)
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "sh".into());
    v.insert("SHELL".into(), shell);
    if let Ok(cwd) = std::env::current_dir() {
        v.insert("CWD".into(), cwd.display().to_string());
    }
    let home = std::env::var("HOME")
        .or_else(|_| std::env::var("USERPROFILE"))
        .unwrap_or_default();
    v.insert("HOME".into(), home);
    let (year, month, day) = today();
    v.insert("DATE".into(), format!("{year:04}-{month:02}-{day:02}"));
    v.insert("YEAR".into(), year.to_string());
    v
}

/// Today's date in UTC.
fn today() -> (i64, u32, u32) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_from_days((secs / 86_400) as i64)
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian
/// (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `<tool>.txt` files in a directory, sorted by name.
pub(crate) fn templates_in(dir: &Path) -> Result<Vec<(String, PathBuf)>, Error> {
    let entries =
        std::fs::read_dir(dir).map_err(|error| Error::read(dir.display().to_string(), error))?;
    let mut out: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().and_then(|e| e.to_str()) == Some("txt"))
        .map(|p| (stem(&p), p))
        .collect();
    out.sort();
    Ok(out)
}

/// The tool a template is for: its file stem.
pub(crate) fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A template's text (a regular file, capped).
#[cfg(feature = "cli")]
pub(crate) fn read(path: &Path) -> Result<String, Error> {
    crate::source::read_text(path).map_err(|error| Error::read(path.display().to_string(), error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vars {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn each_unknown_variable_is_placed_by_line_and_character_column() {
        let t = "é <ONE> <PLATFORM> <TWO>\n\n  ü<SIX>\\<TEN> <END>";
        let errors = render(t, "t.txt", &vars(&[("PLATFORM", "x")]), Syntax::Angle).unwrap_err();
        let at: Vec<(usize, usize)> = errors.iter().map(|e| (e.line, e.column)).collect();
        assert_eq!(at, [(1, 3), (1, 20), (3, 4), (3, 16)]);
    }

    fn ok(t: &str, syntax: Syntax) -> String {
        let v = vars(&[
            ("PLATFORM", "linux"),
            ("SHELL", "bash"),
            ("name", "x"),
            ("MAX_LINES", "2000"),
        ]);
        render(t, "t.txt", &v, syntax).unwrap().text
    }

    #[test]
    fn angle_variables_and_prose() {
        assert_eq!(
            ok("Run <SHELL> on <PLATFORM>.", Syntax::Angle),
            "Run bash on linux."
        );
        let prose = "<important-rules>\n- a < b > c, Vec<T>, <a href=\"x\">, <example>, <T>, <Ab>\n</important-rules>";
        assert_eq!(ok(prose, Syntax::Angle), prose);
        assert_eq!(
            ok("up to <MAX_LINES> lines", Syntax::Angle),
            "up to 2000 lines"
        );
    }

    #[test]
    fn escapes_render_literally() {
        assert_eq!(
            ok("write \\<PLATFORM> or <PLATFORM>", Syntax::Angle),
            "write <PLATFORM> or linux"
        );
        assert_eq!(
            ok("\\<UNKNOWN_ONE> is fine", Syntax::Angle),
            "<UNKNOWN_ONE> is fine"
        );
    }

    #[test]
    fn other_syntaxes() {
        assert_eq!(
            ok("{SHELL} {a,b} {{name}}", Syntax::Brace),
            "bash {a,b} {{name}}"
        );
        assert_eq!(
            ok("${name} $name ${ name }", Syntax::Dollar),
            "x $name ${ name }"
        );
        assert_eq!(
            ok("{{name}} {{ name }} {name}", Syntax::Mustache),
            "x x {name}"
        );
        assert_eq!(ok("\\${name}", Syntax::Dollar), "${name}");
    }

    #[test]
    fn every_unknown_variable_is_reported_with_place_and_suggestion() {
        let t = "line one\nRun on <PLATFROM> with <SHEL>\nand <NOPE_NOT_CLOSE_AT_ALL>.";
        let errs = render(t, "descriptions/bash.txt", &builtins(), Syntax::Angle).unwrap_err();
        let texts: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "unknown variable <PLATFROM> at descriptions/bash.txt:2:8 (did you mean <PLATFORM>?)",
                "unknown variable <SHEL> at descriptions/bash.txt:2:24 (did you mean <SHELL>?)",
                "unknown variable <NOPE_NOT_CLOSE_AT_ALL> at descriptions/bash.txt:3:5",
            ]
        );
    }

    #[test]
    fn no_placeholder_survives_rendering() {
        // A value holding a placeholder would leave it in the text: an error.
        let v = vars(&[("A_B", "<C_D>"), ("E_F", "\\<C_D> is fine")]);
        let errs = render("x <A_B>", "t.txt", &v, Syntax::Angle).unwrap_err();
        assert_eq!(
            errs[0].to_string(),
            "the value of <A_B> holds the placeholder <C_D> at t.txt:1:3"
        );
        assert_eq!(
            render("<E_F>", "t", &v, Syntax::Angle).unwrap().text,
            "\\<C_D> is fine"
        );
    }

    #[test]
    fn used_and_placeholders() {
        let r = render(
            "<PLATFORM> <PLATFORM> <SHELL>",
            "t",
            &builtins(),
            Syntax::Angle,
        )
        .unwrap();
        assert_eq!(r.used, ["PLATFORM", "SHELL"]);
        assert_eq!(placeholders("<A_B> \\<C_D> <e>", Syntax::Angle), ["A_B"]);
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_414), (2025, 11, 22));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        let b = builtins();
        assert_eq!(b["DATE"].len(), 10);
        assert!(b["DATE"].starts_with(&b["YEAR"]));
    }
}
