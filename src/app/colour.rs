//! Whether to colour, decided once per run for each stream, in one place:
//! `--color`, then `NO_COLOR` (set and not empty: never; see no-color.org),
//! then `CLICOLOR_FORCE` (set, not empty and not `0`: always), then whether the
//! stream is a terminal (and `TERM` is not `dumb`). Nothing is coloured until
//! [`Colours::decide`] has run.

use std::fmt::Display;
use std::io::IsTerminal;

use super::cli::ColorArg;

/// The two streams callfix writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// Whether each stream is coloured in one run: decided by [`Colours::decide`]
/// when a command starts, and passed down (never kept in the process: the
/// Python package runs many command lines in one process).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Colours {
    stdout: bool,
    stderr: bool,
}

impl Colours {
    /// Decides for stdout and stderr from the flag and the environment.
    pub(crate) fn decide(arg: ColorArg) -> Colours {
        let var = |name: &str| std::env::var(name).ok();
        let (no_color, force, term) = (var("NO_COLOR"), var("CLICOLOR_FORCE"), var("TERM"));
        let on = |terminal: bool| {
            choose(
                arg,
                no_color.as_deref(),
                force.as_deref(),
                term.as_deref(),
                terminal,
            )
        };
        Colours {
            stdout: on(std::io::stdout().is_terminal()),
            stderr: on(std::io::stderr().is_terminal()),
        }
    }

    /// Whether `stream` is coloured.
    pub(crate) fn on(self, stream: Stream) -> bool {
        match stream {
            Stream::Stdout => self.stdout,
            Stream::Stderr => self.stderr,
        }
    }

    /// `text`, styled by `style` (an owo-colors style) when `stream` is coloured.
    pub(crate) fn paint<T: Display + ?Sized>(
        self,
        stream: Stream,
        text: &T,
        style: impl FnOnce(&T) -> String,
    ) -> String {
        if self.on(stream) {
            style(text)
        } else {
            text.to_string()
        }
    }
}

/// The rule, as a function of its inputs.
fn choose(
    arg: ColorArg,
    no_color: Option<&str>,
    force: Option<&str>,
    term: Option<&str>,
    terminal: bool,
) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            if no_color.is_some_and(|v| !v.is_empty()) {
                false
            } else if force.is_some_and(|v| !v.is_empty() && v != "0") {
                true
            } else {
                terminal && term != Some("dumb")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_and_clicolor_force_follow_their_specs() {
        use ColorArg::*;
        // NO_COLOR set and not empty disables, "0" included; empty does not.
        assert!(!choose(Auto, Some("1"), None, None, true));
        assert!(!choose(Auto, Some("0"), None, None, true));
        assert!(choose(Auto, Some(""), None, None, true));
        // CLICOLOR_FORCE colours a pipe, unless empty or "0"; NO_COLOR wins.
        assert!(choose(Auto, None, Some("1"), None, false));
        assert!(!choose(Auto, None, Some("0"), None, false));
        assert!(!choose(Auto, None, Some(""), None, false));
        assert!(!choose(Auto, Some("1"), Some("1"), None, true));
        // A terminal, unless TERM=dumb; the flag overrides everything.
        assert!(choose(Auto, None, None, Some("xterm"), true));
        assert!(!choose(Auto, None, None, Some("dumb"), true));
        assert!(choose(Always, Some("1"), None, None, false));
        assert!(!choose(Never, None, Some("1"), None, true));
    }
}
