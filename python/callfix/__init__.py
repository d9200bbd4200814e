"""callfix: validate and repair LLM tool calls against JSON Schema.

Every call comes out valid (unchanged), repaired (exactly, every change
reported) or rejected with one line the model can act on::

    >>> import callfix
    >>> ts = callfix.Toolset({"read": {"type": "object",
    ...     "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
    ...     "required": ["path"]}})
    >>> r = ts.check("read", {"path": "/a", "offset": "2"})
    >>> r.status, r.args, r.repairs[0]["kind"]
    ('repaired', {'path': '/a', 'offset': 2}, 'coerce-number')
    >>> ts.check("read", {}).message
    'Please rewrite the input with valid arguments. Errors: path: Required'

A result's ``to_dict()`` is the object ``callfix --format json`` writes for the
same call. See ``docs/python.md`` in the repository for the whole API.
"""

from ._callfix import (
    CallfixError,
    Healed,
    Result,
    Session,
    Toolset,
    __version__,
    heal,
    render,
    tools,
)

__all__ = [
    "CallfixError",
    "Healed",
    "Result",
    "Session",
    "Toolset",
    "__version__",
    "heal",
    "render",
    "tools",
]


def _restore(kind, source, opts):
    """Rebuilds a pickled Toolset from its source (see ``Toolset.__reduce__``)."""
    if kind == "dir":
        return Toolset.from_dir(source, **opts)
    if kind == "tools":
        return Toolset.from_tools(source, **opts)
    return Toolset(source, **opts)
