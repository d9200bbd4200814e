"""Type stubs for the native part of callfix."""

from collections.abc import Iterable, Iterator, Mapping
from os import PathLike
from typing import Any, Literal, Optional, Sequence, Union

__version__: str

JSON = Any
Repair = Union[Literal["all", "none"], str, Sequence[str]]

class CallfixError(ValueError):
    """A schema source, option or argument callfix cannot use."""

class Result:
    """The result of one call; ``to_dict()`` is the CLI's ``--format json`` object."""

    @property
    def status(self) -> Literal["valid", "repaired", "rejected"]: ...
    @property
    def ok(self) -> bool: ...
    @property
    def tool(self) -> Optional[str]: ...
    @property
    def id(self) -> JSON: ...
    @property
    def index(self) -> int: ...
    @property
    def call(self) -> int: ...
    @property
    def args(self) -> JSON: ...
    @property
    def args_json(self) -> Optional[str]: ...
    @property
    def repairs(self) -> list[dict[str, JSON]]: ...
    @property
    def errors(self) -> list[dict[str, str]]: ...
    @property
    def message(self) -> Optional[str]: ...
    @property
    def looped(self) -> bool: ...
    def to_dict(self) -> dict[str, JSON]: ...
    def to_json(self) -> str: ...

class Session:
    """One conversation's checks, with repeated-failure escalation."""

    def check(self, name: str, arguments: Union[JSON, str]) -> Result: ...
    def check_record(self, record: Union[Mapping[str, JSON], str]) -> list[Result]: ...

class Toolset:
    """Tools by name; immutable and safe to share between threads."""

    def __init__(
        self,
        schemas: Mapping[str, Union[Mapping[str, JSON], str]],
        *,
        repair: Repair = "all",
        max_errors: int = 5,
        max_chars: int = 100,
        prefix: str = ...,
        max_rounds: int = 6,
    ) -> None: ...
    @staticmethod
    def from_dir(
        path: Union[str, PathLike[str]],
        *,
        repair: Repair = "all",
        max_errors: int = 5,
        max_chars: int = 100,
        prefix: str = ...,
        max_rounds: int = 6,
    ) -> Toolset: ...
    @staticmethod
    def from_tools(
        tools: JSON,
        *,
        repair: Repair = "all",
        max_errors: int = 5,
        max_chars: int = 100,
        prefix: str = ...,
        max_rounds: int = 6,
    ) -> Toolset: ...
    def names(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def __contains__(self, name: str) -> bool: ...
    def check(self, name: str, arguments: Union[JSON, str]) -> Result: ...
    def check_record(
        self, record: Union[Mapping[str, JSON], str], source: str = "<record>"
    ) -> list[Result]: ...
    def check_stream(
        self,
        data: Union[str, bytes],
        source: str = "<stream>",
        first_index: int = 0,
        first_line: int = 1,
    ) -> list[Result]: ...
    def check_many(
        self,
        records: Iterable[Union[Mapping[str, JSON], str, bytes]],
        batch_size: int = 1024,
        source: str = "<records>",
    ) -> Iterator[Result]: ...
    def report(
        self,
        records: Union[
            str, bytes, bytearray, Mapping[str, JSON], Iterable[Union[Mapping[str, JSON], str, bytes]]
        ],
        *,
        label: Optional[str] = None,
    ) -> dict[str, JSON]: ...
    def session(self, loop_limit: int = 3) -> Session: ...

def render(template: str, vars: Optional[Mapping[str, Union[str, int, float]]] = None) -> str: ...
def tools(
    toolset: Toolset,
    provider: str = "openai",
    descriptions: Optional[Union[str, PathLike[str]]] = None,
    vars: Optional[Mapping[str, Union[str, int, float]]] = None,
    openai_strict: bool = False,
) -> JSON: ...
def _main(argv: list[str]) -> int: ...

class Healed:
    """A conversation made acceptable again (``callfix.heal``)."""

    @property
    def request(self) -> dict[str, JSON]: ...
    @property
    def results(self) -> list[Result]: ...
    @property
    def neutralised(self) -> int: ...
    @property
    def not_carried(self) -> list[str]: ...
    @property
    def ok(self) -> bool: ...

def heal(
    request: Union[Mapping[str, JSON], str],
    toolset: Optional[Toolset] = None,
    *,
    to: Optional[Literal["openai", "anthropic"]] = None,
) -> Healed: ...
def _leaks(text: str, names: list[str]) -> tuple[list[tuple[str, str, str]], str]: ...
def _with_arguments_sent(instruction: str, sent: str) -> str: ...
