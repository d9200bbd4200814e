//! The words `callfix heal` writes into a conversation: the note a rejected
//! call's result carries, and what stands in for a result that is missing or
//! whose call is missing. Every note starts with [`MARK`], so that healing a
//! healed conversation leaves it as it is.

/// How every note of `heal` starts (a result that starts so was written by
/// `heal` and is left alone).
pub(crate) const MARK: &str = "[callfix] ";

/// The result text of a call `heal` rejected: the instruction, then, each on
/// a line of its own, the call as it was sent wherever the history now shows
/// it otherwise (its tool name, its arguments).
pub(crate) fn rejected(
    instruction: &str,
    renamed_from: Option<&str>,
    args_sent: Option<&str>,
) -> String {
    let mut out = format!("{MARK}This call was rejected: {instruction}");
    if let Some(name) = renamed_from {
        out.push_str("\nTool name as sent: ");
        out.push_str(name);
    }
    if let Some(args) = args_sent {
        out.push_str("\nArguments as sent (not a JSON object, shown as {}): ");
        out.push_str(args);
    }
    out
}

/// The result of a call that had none in the history.
pub(crate) fn missing_result() -> String {
    format!("{MARK}No result was recorded for this call.")
}

/// A tool result whose call is not in the conversation (id `id`), kept as
/// text: its own content follows.
pub(crate) fn orphan_result(id: &str) -> String {
    format!("{MARK}A tool result whose call is not in this conversation (id {id:?}):")
}

/// A tool call that could not be read as one, kept as text in its message.
pub(crate) fn unreadable_call(reason: &str, sent: &str) -> String {
    format!("{MARK}A tool call that could not be read was taken out ({reason}); as sent: {sent}")
}

/// A tool call in a message whose role cannot make one (`role`), taken out
/// and kept as text in its message.
pub(crate) fn misplaced_call(role: &str, sent: &str) -> String {
    format!(
        "{MARK}A tool call in a {role} message, where no call can be, was taken out; as sent: {sent}"
    )
}

/// Why a call in a `role` message is no call (its verdict's reason).
pub(crate) fn misplaced_call_reason(role: &str) -> String {
    format!("a tool call in a {role} message, where no call can be")
}

/// The text before an image moved out of a tool result (`--to openai`: a
/// tool message holds text only), `id` the call's id as JSON.
pub(crate) fn moved_image(id: &str) -> String {
    format!("{MARK}An image from the tool result of call {id}:")
}
