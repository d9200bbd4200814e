//! Stage 7: output. One result per call, in input order, in one of four formats.
//! Only this module writes results; it writes to whatever `Write` it is given
//! (buffered stdout in the binary).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use crate::message::{self, one_line};
use crate::provider::{self, Call, Provider};
use crate::spelling::Spellings;
use crate::verdict::{Arguments, Status, Verdict};

/// How results are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// One line per call: the arguments as compact JSON, or the instruction text.
    Args,
    /// One JSON object per call with every detail.
    Json,
    /// The call in its own envelope, or the provider's error tool result.
    Call,
    /// For people: tool, coloured status, pretty arguments, one error per line.
    Human,
}

/// Where a result came from.
#[derive(Debug, Clone, Copy)]
pub struct Position {
    /// Record number, from 0.
    pub index: u64,
    /// Call number within the record, from 0.
    pub call: usize,
    /// 1-based line of the input on which the record starts.
    pub line: u64,
    /// Byte offset in the input at which the record starts.
    pub offset: u64,
}

/// Where the filter sends one result per call (or per broken record):
/// [`Printer`] writes them as the command line does; a program keeps them.
///
/// ```
/// use callfix::provider::Call;
/// use callfix::{Input, Position, Sink, Status, Summary, Toolset, Verdict};
/// use serde_json::json;
///
/// #[derive(Default)]
/// struct Rejected(Vec<String>);
///
/// impl Sink for Rejected {
///     fn call(&mut self, _at: Position, _call: Call, v: Verdict) -> std::io::Result<()> {
///         if v.status() == Status::Rejected {
///             self.0.extend(v.message().map(str::to_owned));
///         }
///         Ok(())
///     }
///     fn record(&mut self, _at: Position, v: Verdict) -> std::io::Result<()> {
///         self.0.extend(v.message().map(str::to_owned));
///         Ok(())
///     }
/// }
///
/// let tools = Toolset::from_schemas([("t".to_owned(), json!({"required": ["a"]}))]);
/// let mut sink = Rejected::default();
/// let records = b"{\"name\": \"t\", \"arguments\": {}}\n";
/// tools.filter().stream(Input::from_bytes(records, "-"), &mut sink, &mut Summary::default())
///     .unwrap();
/// assert_eq!(sink.0, ["Please rewrite the input with valid arguments. Errors: a: Required"]);
/// ```
pub trait Sink {
    /// The number spellings of the record whose results follow.
    fn begin_record(&mut self, _spellings: Spellings) {}

    /// Which model wrote the record whose results follow, and why its turn
    /// stopped (empty where the record does not say, or is broken).
    fn origin(&mut self, _origin: &crate::provider::Origin) {}

    /// Makes every result so far visible (called before waiting for input).
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Something the operator must fix (a broken schema), said once.
    fn diagnostic(&mut self, _message: &str) {}
    /// Takes the result of one call (the sink owns it: keeping it costs no copy).
    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()>;
    /// Takes the result of a record that held no usable call.
    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()>;

    /// With `--jobs`: a printer that writes results to memory exactly as this
    /// sink would, for a worker thread to write the results that depend on no
    /// earlier record (valid and repaired calls) itself; [`Sink::forked`] then
    /// takes its bytes, in order. `None` (the default): every result is handed to
    /// this sink. (An optimisation of the library's own [`Printer`].)
    #[doc(hidden)]
    fn fork(&self) -> Option<Printer<Vec<u8>>> {
        None
    }

    /// Takes results a [`Sink::fork`] wrote.
    #[doc(hidden)]
    fn forked(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }

    /// The results of an assistant message's calls, with the message's text.
    fn message(
        &mut self,
        at: Position,
        _text: &str,
        results: Vec<(Call, Verdict)>,
    ) -> io::Result<()> {
        for (i, (call, verdict)) in results.into_iter().enumerate() {
            self.call(Position { call: i, ..at }, call, verdict)?;
        }
        Ok(())
    }
}

impl<W: Write> Sink for Printer<W> {
    fn begin_record(&mut self, spellings: Spellings) {
        self.spellings = spellings;
    }

    fn fork(&self) -> Option<Printer<Vec<u8>>> {
        // With `--to`, calls and json results carry ids, each checked against
        // the ids given before it (`IdScope`): one printer writes them all, in
        // order.
        if self.to.is_some() && matches!(self.format, Format::Call | Format::Json) {
            return None;
        }
        Some(Printer {
            out: Vec::new(),
            format: self.format,
            to: self.to,
            spellings: Spellings::default(),
            colour: self.colour,
            diagnostics: None,
            ids: provider::IdScope::new(),
            line: Vec::new(),
        })
    }

    fn forked(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        Printer::flush(self)
    }

    /// Flushes the results so far, then hands the message to the diagnostics
    /// sink the caller gave ([`Printer::diagnostics`]), if any.
    fn diagnostic(&mut self, message: &str) {
        let _ = self.out.flush();
        if let Some(say) = &mut self.diagnostics {
            say(message);
        }
    }

    fn call(&mut self, at: Position, call: Call, verdict: Verdict) -> io::Result<()> {
        Printer::call(self, at, &call, &verdict)
    }

    fn record(&mut self, at: Position, verdict: Verdict) -> io::Result<()> {
        Printer::record(self, at, &verdict)
    }

    /// With `--to` and `--format call`: the message in the target's shape (its
    /// text and every call, a rejected one with its arguments as sent), then
    /// the rejected calls' error results, wrapped as the target's API takes them.
    fn message(
        &mut self,
        at: Position,
        text: &str,
        results: Vec<(Call, Verdict)>,
    ) -> io::Result<()> {
        let (Format::Call, Some(to)) =
            (self.format, self.to.filter(|to| to.writer().has_messages()))
        else {
            for (i, (call, verdict)) in results.iter().enumerate() {
                Printer::call(self, Position { call: i, ..at }, call, verdict)?;
            }
            return Ok(());
        };
        let mut calls = Vec::with_capacity(results.len());
        let mut errors = Vec::new();
        for (i, (call, verdict)) in results.iter().enumerate() {
            let place = place(Position { call: i, ..at });
            match verdict
                .args()
                .filter(|_| verdict.status != Status::Rejected)
            {
                Some(args) => calls.push(
                    provider::convert(call, to, args, &self.spellings, &mut self.ids, place).call,
                ),
                None => {
                    // As sent: the text, else the parsed value, else what the
                    // call still holds (judging stopped before taking it).
                    let sent = match (&verdict.raw, verdict.args()) {
                        (Some(text), _) => provider::Args::Text(text.clone()),
                        (None, Some(v)) => provider::Args::Value(v.clone()),
                        (None, None) => call.args.clone(),
                    };
                    let (c, sent) = provider::convert_rejected(
                        call,
                        &sent,
                        to,
                        &self.spellings,
                        &mut self.ids,
                        place,
                    );
                    let message = verdict.message.as_deref().unwrap_or_default();
                    let message = match sent {
                        Some(sent) => message::with_arguments_sent(message, &sent),
                        None => message.to_owned(),
                    };
                    errors.push(to.writer().error_result(&c.id, &c.name, &message));
                    calls.push(c.call);
                }
            }
        }
        self.value_line(&to.writer().new_message(text, calls))?;
        if !errors.is_empty() {
            for line in to.writer().results_messages(errors) {
                self.value_line(&line)?;
            }
        }
        Ok(())
    }
}

/// A result's position as the provider module counts it (for derived ids).
fn place(at: Position) -> provider::Place {
    provider::Place {
        record: at.index,
        call: at.call,
    }
}

/// Writes one JSON object a field at a time, byte for byte as serde_json's
/// compact serializer writes a struct (`{"key":value,…}`), each value with the
/// record's number spellings. The names are written as they are (they are
/// ours, plain ASCII): through the serializer, each name cost as much as a
/// value, and a `--format json` line has ten.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    spellings: &'a Spellings,
    first: bool,
}

impl<'a> Object<'a> {
    fn begin(out: &'a mut Vec<u8>, spellings: &'a Spellings) -> Self {
        out.push(b'{');
        Object {
            out,
            spellings,
            first: true,
        }
    }

    /// A field's separator and name (plain ASCII, no quote or backslash), up
    /// to its value.
    fn key(&mut self, name: &str) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.push(b'"');
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    fn end(self) {
        self.out.push(b'}');
    }

    /// Field `name` with `value`, through serde's serializer.
    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> io::Result<()> {
        self.key(name);
        self.spellings.write(&mut *self.out, value)
    }

    /// [`Object::field`] for a value (or `null`), by the direct writer.
    fn value_field(&mut self, name: &str, value: Option<&Value>) {
        self.key(name);
        match value {
            Some(value) => self.spellings.write_value(self.out, value),
            None => self.out.extend_from_slice(b"null"),
        }
    }

    /// [`Object::field`] for a whole number, by the direct writer (as
    /// serde_json writes one: decimal digits).
    fn number_field(&mut self, name: &str, n: u64) {
        self.key(name);
        write_decimal(self.out, n);
    }

    /// [`Object::field`] for a string (or `null`), by the direct writer.
    fn str_field(&mut self, name: &str, s: Option<&str>) {
        self.key(name);
        match s {
            Some(s) => self.spellings.write_str(self.out, s),
            None => self.out.extend_from_slice(b"null"),
        }
    }

    /// [`Object::field`] for JSON text made here (`[]`, `true`, …).
    fn text_field(&mut self, name: &str, text: &str) {
        self.key(name);
        self.out.extend_from_slice(text.as_bytes());
    }

    /// [`Object::value_field`] for a verdict's arguments ([`write_arguments`]).
    fn arguments_field(&mut self, name: &str, args: &Arguments) {
        self.key(name);
        write_arguments(self.spellings, self.out, args);
    }
}

/// A verdict's arguments as a result writes them: their text as sent, when
/// they were kept so (valid as sent: already what `spellings` would write),
/// else their value with the record's number spellings.
fn write_arguments(spellings: &Spellings, out: &mut Vec<u8>, args: &Arguments) {
    match args.text() {
        Some(text) => out.extend_from_slice(text.as_bytes()),
        None => spellings.write_value(out, args.value()),
    }
}

/// `n` in decimal digits, as serde_json writes a whole number.
fn write_decimal(out: &mut Vec<u8>, mut n: u64) {
    let start = out.len();
    loop {
        // A digit: `n % 10` is below 10.
        out.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if let Some(digits) = out.get_mut(start..) {
        digits.reverse();
    }
}

/// A status as the JSON string [`Status::as_str`] is.
fn quoted(status: Status) -> &'static str {
    match status {
        Status::Valid => r#""valid""#,
        Status::Repaired => r#""repaired""#,
        Status::Rejected => r#""rejected""#,
    }
}

/// One repair in a `--format json` result.
#[derive(Serialize)]
struct RepairOut<'a> {
    path: &'a str,
    kind: &'static str,
    from: &'a Value,
    to: &'a Value,
}

/// Where operator diagnostics go.
type Diagnostics = Box<dyn FnMut(&str) + Send>;

/// Writes results in one format, as the command line does: the [`Sink`] a
/// [`Filter`](crate::Filter) run writes into (an example at
/// [`Toolset::filter`](crate::Toolset::filter)).
pub struct Printer<W: Write> {
    out: W,
    format: Format,
    /// `--to`: the provider calls are written for.
    to: Option<Provider>,
    /// How the current record spelled its numbers.
    spellings: Spellings,
    /// Whether `human` output is coloured.
    colour: bool,
    /// Where operator diagnostics go (the binary: stderr).
    diagnostics: Option<Diagnostics>,
    /// `--to`: the ids given so far, so that no two calls share one.
    ids: provider::IdScope,
    /// The line being made (`value_line`, `json_line`), kept for its capacity.
    line: Vec<u8>,
}

impl<W: Write> Printer<W> {
    /// A printer writing `format` to `out`.
    pub fn new(out: W, format: Format) -> Self {
        Self {
            out,
            format,
            to: None,
            spellings: Spellings::default(),
            colour: false,
            diagnostics: None,
            ids: provider::IdScope::new(),
            line: Vec::new(),
        }
    }

    /// Colours `human` output (the caller decides, from its flags and terminal).
    pub fn colour(mut self, on: bool) -> Self {
        self.colour = on;
        self
    }

    /// Sends operator diagnostics (a broken schema, said once) to `say`.
    pub fn diagnostics(mut self, say: impl FnMut(&str) + Send + 'static) -> Self {
        self.diagnostics = Some(Box::new(say));
        self
    }

    /// Writes calls (`--format call`) and records ids and names (`--format json`)
    /// for provider `to`.
    pub fn to(mut self, to: Option<Provider>) -> Self {
        self.to = to;
        self
    }

    /// Writes the result of one call.
    pub fn call(&mut self, at: Position, call: &Call, verdict: &Verdict) -> io::Result<()> {
        match self.format {
            Format::Args => self.args_line(verdict),
            Format::Json => self.json_line(at, Some(call), verdict),
            Format::Call => {
                let message = verdict.message.as_deref().unwrap_or("no arguments");
                let value = match (&verdict.status, verdict.args(), self.to) {
                    (Status::Rejected, _, None) | (_, None, None) => {
                        provider::error_result(call, message)
                    }
                    (Status::Rejected, _, Some(to)) | (_, None, Some(to)) => {
                        provider::convert_error(call, to, message, &mut self.ids, place(at))
                    }
                    (_, Some(args), None) => provider::write_call(call, args, &self.spellings),
                    (_, Some(args), Some(to)) => {
                        provider::convert(call, to, args, &self.spellings, &mut self.ids, place(at))
                            .call
                    }
                };
                self.value_line(&value)
            }
            Format::Human => self.human(at, Some(call), verdict),
        }
    }

    /// Writes the result of a record that yielded no call (invalid JSON, no
    /// recognisable envelope).
    pub fn record(&mut self, at: Position, verdict: &Verdict) -> io::Result<()> {
        match self.format {
            Format::Args => self.args_line(verdict),
            Format::Json => self.json_line(at, None, verdict),
            Format::Call => {
                let message = verdict.message.as_deref().unwrap_or_default();
                self.value_line(&provider::record_error(at.index, message))
            }
            Format::Human => self.human(at, None, verdict),
        }
    }

    /// Flushes what was written.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The writer back (tests read what was written).
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The writer (a fork's bytes are taken from it).
    pub(crate) fn out_mut(&mut self) -> &mut W {
        &mut self.out
    }

    fn args_line(&mut self, verdict: &Verdict) -> io::Result<()> {
        match (&verdict.status, &verdict.args) {
            (Status::Valid | Status::Repaired, Some(args)) => {
                self.line_of(|spellings, line| write_arguments(spellings, line, args))
            }
            // A message is one line already; a line reader's split is kept
            // whatever a caller's own message holds.
            _ => {
                let message = verdict.message.as_deref().unwrap_or_default();
                self.out.write_all(one_line(message).as_bytes())?;
                self.out.write_all(b"\n")
            }
        }
    }

    fn value_line(&mut self, value: &Value) -> io::Result<()> {
        self.line_of(|spellings, line| spellings.write_value(line, value))
    }

    /// Writes the line `write` makes (with the record's number spellings).
    fn line_of(&mut self, write: impl FnOnce(&Spellings, &mut Vec<u8>)) -> io::Result<()> {
        // Made in memory, then written in one piece: the serializer writes
        // a few bytes at a time, and a `Vec` takes them for less than a
        // buffered writer does.
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        write(&self.spellings, &mut line);
        line.push(b'\n');
        let written = self.out.write_all(&line);
        self.line = line;
        written
    }

    fn json_line(
        &mut self,
        at: Position,
        call: Option<&Call>,
        verdict: &Verdict,
    ) -> io::Result<()> {
        // One `--format json` result. Its JSON Schema is
        // `docs/result.schema.json`, which a test checks real output against.
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        // Written by the direct writer, byte for byte as serde_json writes
        // them; repairs and errors, when there are any, by the serializer.
        let mut o = Object::begin(&mut line, &self.spellings);
        // Record number, and call number within the record, from 0.
        o.number_field("index", at.index);
        o.number_field("call", at.call as u64);
        // The call's id as sent (null when it had none); the tool (null for a
        // broken record); `valid`, `repaired` or `rejected`.
        o.value_field("id", call.map(|c| &c.id));
        o.str_field("tool", call.map(|c| c.name.as_str()));
        o.text_field("status", quoted(verdict.status));
        // The arguments passed on (null when rejected).
        match (verdict.status, &verdict.args) {
            (Status::Rejected, _) | (_, None) => o.value_field("args", None),
            (_, Some(args)) => o.arguments_field("args", args),
        }
        if verdict.repairs.is_empty() {
            o.text_field("repairs", "[]");
        } else {
            let repairs: Vec<RepairOut<'_>> = verdict
                .repairs
                .iter()
                .map(|r| RepairOut {
                    path: &r.path,
                    kind: r.kind.name(),
                    from: &r.from,
                    to: &r.to,
                })
                .collect();
            o.field("repairs", &repairs)?;
        }
        if verdict.errors.is_empty() {
            o.text_field("errors", "[]");
        } else {
            o.field("errors", &verdict.errors)?;
        }
        // The instruction for the model (null unless rejected); whether the
        // same rejected call came back `--loop-limit` times.
        o.str_field("message", verdict.message.as_deref());
        o.text_field(
            "loop",
            if verdict.looped.is_some() {
                "true"
            } else {
                "false"
            },
        );
        // With --to: the id and name the target provider sees, to map results
        // back (null for a record that held no call).
        if let Some(to) = self.to {
            let id = call.map_or(Value::Null, |c| self.ids.assign(c, to, place(at)));
            o.field("provider_id", &id)?;
            let name = call.map_or(Value::Null, |c| to.api().tool_name(&c.name).into());
            o.field("provider_name", &name)?;
        }
        o.end();
        line.push(b'\n');
        let written = self.out.write_all(&line);
        self.line = line;
        written
    }
}

mod human;

#[cfg(test)]
mod tests;
