"""JSON that keeps every number's text, for scripts/repair_corpus.py.

The corpus sends numbers whose text is not the shortest float form (`99.50`,
`1.0`, 25-digit integers, 36-digit decimals); `loads` keeps each as a `Num` of
its exact text, and `dumps` writes it back as that text.
"""
import json
import re


class Num(tuple):
    """A JSON number by its exact text (a tuple, so it never equals a str or list)."""

    def __new__(cls, text):
        return tuple.__new__(cls, ("#num", str(text)))

    @property
    def text(self):
        return self[1]


def _plain(obj):
    if isinstance(obj, Num):
        return "\x00num:%s\x00" % obj.text
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_plain(v) for v in obj]
    return obj


def dumps(obj, **kw):
    """json.dumps that writes each Num as its exact text."""
    return re.sub(r'"\\u0000num:([^"\\]*)\\u0000"', r"\1", json.dumps(_plain(obj), **kw))


def loads(text):
    """json.loads that keeps every number's text."""
    return json.loads(text, parse_float=Num, parse_int=Num)
