use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use callfix::cli::Cli;

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            let quiet = err
                .chain()
                .filter_map(|e| e.downcast_ref::<callfix::error::Error>())
                .any(callfix::error::Error::is_broken_pipe);
            if quiet {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(std::io::stderr(), "callfix: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn try_main() -> anyhow::Result<u8> {
    let cli = Cli::parse();
    Ok(callfix::run(&cli)?)
}
