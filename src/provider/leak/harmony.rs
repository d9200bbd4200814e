//! gpt-oss Harmony: `<|start|>assistant<|channel|>commentary to=functions.read
//! <|constrain|>json<|message|>{"path": "/a"}<|call|>` (the recipient may also
//! come before the channel). Servers often drop the `<|call|>` stop token, so
//! the call ends where its JSON does; JSON cut off is not closed.

use serde_json::Value;

use super::cursor::Cursor;
use super::json::json_value;
use super::scan::{Ctx, Read};
use super::{LeakProblem, found, malformed, no_name};

const TO: &str = "to=functions.";
const MESSAGE: &str = "<|message|>";
const CALL: &str = "<|call|>";

/// A Harmony call at the start of `text` (its opening is the row's).
pub(super) fn read(text: &str, ctx: &mut Ctx) -> Read {
    let mut c = Cursor::new(text);
    if c.take_until(TO).is_none() {
        return no_name(text);
    }
    let name = c.take_while(|ch| !ch.is_whitespace() && ch != '<');
    if c.take_before(MESSAGE).is_none() {
        return malformed(text, name, LeakProblem::NotClosed);
    }
    if name.is_empty() {
        return no_name(c.done());
    }
    c.eat(MESSAGE);
    match json_value(&mut c) {
        Ok((Value::Object(args), _)) => {
            c.eat(CALL);
            found(name.to_owned(), args, c.done())
        }
        Ok(_) => malformed(c.done(), name, LeakProblem::ArgsNotAnObject),
        Err(why) => {
            // JSON that does not parse ends at its `<|call|>`, when one
            // follows: the calls after it stand.
            let mut to_call = Cursor::new(text);
            let markup = if ctx.occurs(CALL, c.rest()) {
                to_call.take_until(CALL).map(|_| to_call.done())
            } else {
                None
            };
            malformed(markup.unwrap_or(text), name, why)
        }
    }
}
