//! `callfix completions SHELL` and `callfix man`: what a packaged command line
//! ships beside the binary, generated from the same clap definition; and usage
//! errors said as clap says them.

use std::io::Write;

use crate::error::{Error, IoCause};
use clap::CommandFactory;

use super::cli::Cli;

/// The completion script for `shell`, on stdout. It is made in memory first:
/// clap_complete panics when its writer fails (a closed pipe).
pub(crate) fn completions(shell: clap_complete::Shell) -> anyhow::Result<super::Ended> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "callfix", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .map_err(Error::write)?;
    Ok(super::Ended::Clean)
}

/// The man page (roff) of callfix or one subcommand, on stdout; or with
/// `--dir`, every page written there (the pages callfix(1) cites). `help` has
/// no page, so no page cites one.
pub(crate) fn man(args: &super::cli::ManArgs) -> anyhow::Result<super::Ended> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    if let Some(dir) = &args.dir {
        clap_mangen::generate_to(cmd, dir).map_err(|e| {
            anyhow::Error::new(IoCause(e))
                .context(format!("cannot write the man pages into {}", dir.display()))
        })?;
        return Ok(super::Ended::Clean);
    }
    let page = match &args.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name).filter(|c| !c.is_hide_set()) {
            Some(sub) => sub.clone(),
            None => usage_error(&format!("callfix has no subcommand \"{name}\"")),
        },
    };
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .and_then(|()| out.flush())
        .map_err(Error::write)?;
    Ok(super::Ended::Clean)
}

/// A usage error found after parsing (flags that do not go together): said the
/// way clap says its own, exit 2.
pub(crate) fn usage_error(message: &str) -> ! {
    Cli::command()
        .error(clap::error::ErrorKind::ArgumentConflict, message)
        .exit()
}
