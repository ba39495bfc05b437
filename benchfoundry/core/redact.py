"""The one redaction applied to anything that may hold a secret before it is logged or written: a server's
error body (which may echo the request's Authorization header), a URL with credentials in it, an error
message quoting either.

Replaced by `***`: the user and password of a URL (`http://user:secret@host` → `http://***@host`), the
token after `Bearer` (and a base64 one after `Basic`), the value of a header or field named like a
credential (`Authorization`, `api_key`, `x-api-key`, `token`, `secret`, `password`, …) and of the URL query
parameters `key`, `sig`, `signature`, token shapes of well-known providers (`sk-…`, `hf_…`, `ghp_…`,
`AKIA…`), the values (of `MIN_SECRET_CHARS` or more) of this process's environment variables named like a
credential (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, …), and any further secrets the caller names. A
secret is found in any case (a server that lower-cases what it echoes), split by white space, quotes, `+`,
commas or escaped line breaks (an echo wrapped or cut into pieces), with any of its characters JSON-escaped
(`\u0073k-…`), URL-encoded (`%73`), HTML-encoded (`&#115;`, `&#x73;`, `&amp;`) or full-width (`ｓ`), reversed, and
as its bytes in hex or base64 (at any alignment inside a longer encoded text, either alphabet, wrapped in lines).
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

MASK = "***"
#: Environment variables whose values are secrets by their name.
_SECRET_ENV = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
#: Shorter environment values are left alone (a `…_KEY=1` flag is not a secret worth mangling text for).
MIN_SECRET_CHARS = 8
#: A secret this short is masked nowhere but in the shapes of `_PATTERNS` (a URL's `user:pass@`, …).
MIN_MASKED_CHARS = 4
_CREDENTIAL_NAME = (
    r"(?:authorization|proxy-authorization|api[-_]?key|x-api-key|access[-_]?token|auth[-_]?token|"
    r"token|secret|password|passwd|client[-_]?secret)"
)
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<=://)[^/\s@?#]+@"), MASK + "@"),
    (re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=:-]+", re.IGNORECASE), r"\1 " + MASK),
    (re.compile(r"\b(Basic)\s+[A-Za-z0-9+/=]{8,}"), r"\1 " + MASK),
    (
        re.compile(
            rf"(\b{_CREDENTIAL_NAME}[\"']?\s*[:=]\s*[\"']?)(?!{re.escape(MASK)}|Bearer\b|Basic\b)[^\"'\s,;&}}]+",
            re.IGNORECASE,
        ),
        r"\1" + MASK,
    ),
    (re.compile(r"([?&](?:key|sig|signature)=)[^&\s\"']+", re.IGNORECASE), r"\1" + MASK),
    (re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{8,}"), MASK),
    (re.compile(r"\bhf_[A-Za-z0-9]{8,}"), MASK),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{16,}"), MASK),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), MASK),
)


#: What may stand between two characters of an echoed secret: white space, an escaped line break, quotes, `+`, `,`.
_SPLIT = r"(?:\s|\\[nrt]|[\"'+,])*"
#: What may stand between two characters of an encoded secret (base64 or hex wrapped in lines).
_WRAP = r"(?:\s|\\[nrt])*"
#: HTML's named entities of the characters a key may hold.
_HTML_NAMED = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos", "/": "sol", "=": "equals", "+": "plus"}


def _char_forms(c: str) -> list[str]:
    """A character as itself and as it is escaped or encoded one at a time: JSON `\\uXXXX` (and `\\/`), URL `%XX`,
    HTML `&#N;`, `&#xH;` and named entities, and its full-width form (`ｓ` for `s`)."""
    code = ord(c)
    forms = [re.escape(c), rf"\\u{code:04x}", rf"&\#0*{code};", rf"&\#x0*{code:x};"]
    if code < 0x100:
        forms.append(rf"%{code:02x}")
    if c in _HTML_NAMED:
        forms.append(rf"&{_HTML_NAMED[c]};")
    if c == "/":
        forms.append(r"\\/")
    if 0x21 <= code <= 0x7E:
        forms.append(re.escape(chr(code + 0xFEE0)))
    return forms


def _spelled(text: str) -> str:
    """A regex of `text` spelled one character at a time, each in any of its `_char_forms`, split by `_SPLIT`."""
    return _SPLIT.join(f"(?:{'|'.join(_char_forms(c))})" for c in text)


def _base64_runs(data: bytes) -> list[str]:
    """The base64 characters that `data` alone determines at each of the three byte alignments it may have inside
    a longer encoded text, standard and URL-safe alphabets."""
    runs = []
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode()
        start, end = -(-8 * offset // 6), 8 * (offset + len(data)) // 6
        run = encoded[start:end]
        runs += [run, run.replace("+", "-").replace("/", "_")]
    return runs


@lru_cache(maxsize=256)
def secret_pattern(secret: str) -> re.Pattern[str]:
    """`secret` in any case, split (see `_SPLIT`), each character also escaped or encoded (`_char_forms`), also
    reversed, and its UTF-8 bytes in hex."""
    data = secret.encode()
    hexed = _WRAP.join(data.hex())
    return re.compile(f"{_spelled(secret)}|{_spelled(secret[::-1])}|{hexed}", re.IGNORECASE)


@lru_cache(maxsize=256)
def encoded_pattern(secret: str) -> re.Pattern[str]:
    """`secret`'s UTF-8 bytes in base64 (case matters), at any alignment, wrapped or with `+ / =` URL-encoded."""
    forms = {"+": r"(?:\+|%2[bB])", "/": r"(?:/|\\/|%2[fF])"}
    runs = sorted(set(_base64_runs(secret.encode())), key=len, reverse=True)
    return re.compile("|".join(_WRAP.join(forms.get(c, re.escape(c)) for c in run) for run in runs))


def mask_secrets(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every form of each secret (`secret_pattern`) replaced by `***`, and nothing else changed; a
    secret shorter than `MIN_SECRET_CHARS` only as given (its split or case-folded forms would match ordinary
    words), and one shorter than `MIN_MASKED_CHARS` not at all (it would mangle every word holding it)."""
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET_CHARS:
            text = encoded_pattern(secret).sub(MASK, secret_pattern(secret).sub(MASK, text))
        elif secret and len(secret) >= MIN_MASKED_CHARS:
            text = text.replace(secret, MASK)
    return text


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of the environment variables named like a credential, longest first."""
    env = os.environ if environ is None else environ
    found = {v for k, v in env.items() if _SECRET_ENV.search(k) and len(v.strip()) >= MIN_SECRET_CHARS}
    return sorted(found, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with every credential it may hold replaced by `***` (see the module's docstring)."""
    text = mask_secrets(text, [*(s for s in secrets if s), *environment_secrets()])
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact_data(value: Any, secrets: Iterable[str | None] = ()) -> Any:
    """`redact` applied to every string inside nested dicts, lists and tuples (keys included)."""
    keep = [s for s in secrets if s]
    if isinstance(value, str):
        return redact(value, keep)
    if isinstance(value, Mapping):
        return {redact_data(k, keep): redact_data(v, keep) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v, keep) for v in value]
    return value
