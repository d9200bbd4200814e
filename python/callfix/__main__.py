"""The ``callfix`` command: the Rust command line, run through the extension."""

import signal
import sys

from ._callfix import _main


def main() -> None:
    # Ctrl-C and a closed pipe end the command as they end the native binary.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_main(["callfix", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
