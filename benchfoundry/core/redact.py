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
commas or escaped line breaks (an echo wrapped or cut into pieces), and with any of its characters
JSON-escaped (`\u0073k-…`).
"""

from __future__ import annotations

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


@lru_cache(maxsize=256)
def secret_pattern(secret: str) -> re.Pattern[str]:
    """`secret` in any case, split (see `_SPLIT`), each character also as its JSON escape `\\uXXXX`."""
    chars = []
    for c in secret:
        forms = [re.escape(c), rf"\\u{ord(c):04x}"] + ([r"\\/"] if c == "/" else [])
        chars.append(f"(?:{'|'.join(forms)})")
    return re.compile(_SPLIT.join(chars), re.IGNORECASE)


def mask_secrets(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every form of each secret (`secret_pattern`) replaced by `***`, and nothing else changed; a
    secret shorter than `MIN_SECRET_CHARS` only as given (its split or case-folded forms would match ordinary
    words), and one shorter than `MIN_MASKED_CHARS` not at all (it would mangle every word holding it)."""
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET_CHARS:
            text = secret_pattern(secret).sub(MASK, text)
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
