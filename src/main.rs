use std::process::ExitCode;

use callfix::app;

/// mimalloc: with `--jobs`, results are made on worker threads and freed on the
/// main one, which glibc's malloc serialises on its arena locks
/// (docs/dependencies.md). musl builds keep musl's allocator.
#[cfg(not(target_env = "musl"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    if closed_stdout::at_start() {
        return ExitCode::from(app::stdout_closed());
    }
    ExitCode::from(app::main(std::env::args_os()))
}

/// Whether stdout was closed when the process started (`callfix >&-`). Rust's
/// runtime reopens a closed standard descriptor on `/dev/null` before `main`,
/// where it can no longer be told from `>/dev/null`; so on Linux descriptor 1 is
/// looked at earlier, from the ELF init array. This is callfix's only `unsafe`.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod closed_stdout {
    use std::sync::atomic::{AtomicBool, Ordering};

    static CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" fn check() {
        // SAFETY: F_GETFD only reads the descriptor's flags; it touches no memory.
        let flags = unsafe { libc::fcntl(1, libc::F_GETFD) };
        CLOSED.store(flags == -1, Ordering::Relaxed);
    }

    #[used]
    #[unsafe(link_section = ".init_array")]
    static CHECK: extern "C" fn() = check;

    pub(crate) fn at_start() -> bool {
        CLOSED.load(Ordering::Relaxed)
    }
}

#[cfg(not(target_os = "linux"))]
mod closed_stdout {
    pub(crate) fn at_start() -> bool {
        false
    }
}
