"""Settings: one pydantic-settings object, read from the environment and `.env`.

Every key takes the `DOCENT_` prefix except provider keys, which keep their standard
names (`GOOGLE_API_KEY`). Nothing here runs at import time: call `get_settings()`.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    AnyHttpUrl,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from docent.textfile import not_utf8

ENV_PREFIX = "DOCENT_"
PROVIDERS = ("extractive", "gemini", "openai")

Provider = Literal["extractive", "gemini", "openai"]
CommaList = Annotated[list[str], NoDecode]

# Chroma's collection-name rule (chromadb 1.5.9): 3-512 of [a-zA-Z0-9._-], first and last
# a letter or digit, no "..", and not an IPv4 address (an IPv6 one needs ":", already out).
_COLLECTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]")
# Chroma's 512, less the "-units" of the companion collection (docent.retrieval.store).
MAX_COLLECTION_CHARS = 506


def check_collection_name(value: str) -> str:
    """`value` when Chroma accepts it as a collection name, else ValueError saying why."""
    if not _COLLECTION_NAME.fullmatch(value):
        raise ValueError(
            "a collection name must be 3 to 512 characters from A-Z, a-z, 0-9, '.', '_' "
            "and '-', starting and ending with a letter or digit"
        )
    if ".." in value:
        raise ValueError("a collection name must not contain two consecutive periods (..)")
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return value
    raise ValueError("a collection name must not be an IPv4 address")


class ConfigError(ValueError):
    """A setting has a bad value; the message names the environment key."""


class Settings(BaseSettings):
    """Effective configuration of one docent process."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        frozen=True,
    )

    # --- agent guards ---
    max_turns: int = Field(6, ge=1, le=50, description="Cap on llm<->tools cycles per run.")
    max_tool_calls: int = Field(3, ge=1, le=20, description="Cap on retriever calls per run.")
    max_context_chars: int = Field(
        60000, ge=500, description="History budget in characters before each model call."
    )
    top_k: int = Field(5, ge=1, le=20, description="Chunks returned by one retrieval.")
    tool_retries: int = Field(3, ge=0, le=10, description="Retries of a failing retrieval.")
    retrieval_timeout_seconds: float = Field(
        10.0, gt=0, le=300, description="Longest wait for one search; then it counts as failed."
    )
    llm_retries: int = Field(2, ge=0, le=10, description="Retries of a failing model call.")
    retry_max_wait_seconds: float = Field(
        8.0, ge=0, le=120, description="Upper bound of one backoff wait between retries."
    )

    # --- store and ingestion ---
    data_dir: Path = Field(Path(".docent"), description="Where the embedded Chroma store lives.")
    collection: str = Field(
        "docent", description="Chroma collection name; must satisfy Chroma's naming rule."
    )
    chroma_url: AnyHttpUrl | None = Field(
        None, description="URL of a Chroma server; when unset the embedded store is used."
    )
    docs_path: Path = Field(Path("docs"), description="Markdown folder ingested by default.")
    docs_base_url: AnyHttpUrl | None = Field(
        None, description="Public URL of the docs site; enables page_url deep links."
    )
    refuse_unknown_names: bool = Field(
        True, description="Refuse when the question names something the docs never mention."
    )
    max_unknown_shift: float = Field(
        0.24,
        ge=0,
        le=2,
        description="Refuse when removing the question's words the docs never use moves its "
        "meaning (1 - cosine of the two sentence vectors) by more than this; 2 turns it off.",
    )
    refuse_missing_values: bool = Field(
        True,
        description="Refuse a question asking for a value (how many, how long, what price, "
        "which version...) when no passage states one next to what it asks about.",
    )
    min_coverage: float = Field(
        0.3,
        ge=0,
        le=1,
        description="Sufficiency threshold: below this share of the question's distinctive "
        "terms found in the passages, retrieval counts as empty and the answer is the refusal.",
    )
    drop_suspicious_lines: bool = Field(
        True,
        description="Leave out of the index the lines ingestion reports as looking like "
        "secrets or instructions aimed at the assistant (they are reported either way).",
    )
    crawl_concurrency: int = Field(
        4, ge=1, le=16,
        description="Pages `docent ingest https://site/sitemap.xml` fetches at once (one at a "
        "time when the site's robots.txt sets a crawl delay).",
    )
    chunk_max_tokens: int = Field(
        256, ge=64, le=512, description="Largest chunk, in embedding-model tokens."
    )

    # --- models ---
    llm_provider: Literal["auto", "extractive", "gemini", "openai"] = Field(
        "auto", description="auto: gemini (then extractive) when GOOGLE_API_KEY is set."
    )
    llm_providers: CommaList = Field(
        default_factory=list,
        description="Ordered fallback chain, e.g. gemini,openai,extractive; overrides "
        "DOCENT_LLM_PROVIDER.",
    )
    gemini_model: str = Field("gemini-2.5-flash", min_length=1)
    gemini_base_url: AnyHttpUrl | None = Field(None, description="Gateway for the Gemini API.")
    google_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("GOOGLE_API_KEY", "DOCENT_GOOGLE_API_KEY")
    )
    openai_base_url: AnyHttpUrl | None = Field(
        None, description="Any OpenAI-compatible endpoint (Groq, Ollama, vLLM, llama.cpp)."
    )
    openai_model: str = Field("gpt-4o-mini", min_length=1)
    openai_tools: bool = Field(
        True,
        description="The OpenAI-compatible model supports tool calling; false offers it no "
        "tools and shows it the passages as text (for servers whose chat template drops "
        "tool messages, as many small local models' do).",
    )
    openai_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("OPENAI_API_KEY", "DOCENT_OPENAI_API_KEY")
    )
    llm_timeout_seconds: float = Field(
        30.0,
        gt=0,
        le=600,
        description="Deadline of one model call, streaming included; past it the call is "
        "abandoned and the next provider answers (a timeout is never retried).",
    )
    llm_max_output_tokens: int = Field(
        1024, ge=16, le=65536, description="Cap on the tokens one model reply may generate."
    )
    llm_breaker_failures: int = Field(
        1,
        ge=1,
        le=100,
        description="Failed calls in a row (each after its retries) that open a provider's "
        "circuit: it is skipped until the cool-down ends.",
    )
    llm_breaker_cooldown_seconds: float = Field(
        60.0, ge=0, le=3600, description="How long an open circuit skips its provider; 0 = never."
    )
    first_search: Literal["search", "tool"] = Field(
        "search",
        description="How a run's first search happens: `search`, the graph searches the "
        "question before the first model call; `tool`, the first model call is forced "
        "(tool_choice) to call search_docs.",
    )

    gap_log: Path | None = Field(
        None,
        validation_alias=AliasChoices("DOCENT_GAP_LOG", "GAP_LOG"),
        description="Opt-in: append questions that ended in a refusal to this file.",
    )

    # --- sessions and rate limits ---
    session_ttl_seconds: float = Field(1800.0, gt=0, description="Idle time before expiry.")
    session_max_turns: int = Field(10, ge=1, le=100, description="Turns kept per session.")
    session_max_count: int = Field(
        1000, ge=1, le=1_000_000,
        description="Most sessions kept at once; a new one evicts the least recently used idle "
        "session (one mid-turn is never evicted).",
    )
    rate_limit_enabled: bool = True
    rate_limit_session_per_minute: int = Field(10, ge=1)
    rate_limit_client_per_hour: int = Field(100, ge=1)
    cors_origins: CommaList = Field(
        default_factory=list, description="Origins allowed to call the API from a browser."
    )
    trusted_proxies: CommaList = Field(
        default_factory=list,
        description="Addresses or networks (10.0.0.0/8) of reverse proxies whose "
        "X-Forwarded-For names the client; '*' trusts any peer. Empty: the header is ignored.",
    )

    # --- state shared by replicas ---
    redis_url: SecretStr | None = Field(
        None,
        description="redis://[:password@]host:port/db (or rediss://, unix://) of the Redis every "
        "replica shares: sessions, rate limits, caches. Unset: all in this process's memory.",
    )
    redis_prefix: str = Field(
        "docent:", min_length=1, max_length=64,
        description="Prefix of every Redis key docent writes, so deployments can share a Redis.",
    )
    redis_timeout_seconds: float = Field(
        0.5, gt=0, le=30, description="Longest wait for one Redis call before Redis counts as down."
    )
    session_lock_seconds: float = Field(
        30.0, ge=1, le=3600,
        description="With Redis: how long a session stays locked after the replica running its "
        "turn died (the lock is renewed while a turn runs).",
    )
    metrics_enabled: bool = Field(True, description="Serve Prometheus metrics at GET /metrics.")

    # --- caches ---
    retrieval_cache_size: int = Field(1024, ge=0, description="0 disables the cache.")
    retrieval_cache_ttl_seconds: float = Field(3600.0, gt=0)
    llm_cache_size: int = Field(256, ge=0, description="0 disables the cache.")
    llm_cache_ttl_seconds: float = Field(3600.0, gt=0)

    # --- CPU ---
    worker_threads: int = Field(
        2, ge=1, le=64,
        description="Threads that run searches and the extractive model: the bound on "
        "CPU work in flight; more requests wait for one, and with the extractive model as many "
        "/chat runs are under way at once (bench/README.md has measurements).",
    )
    embed_threads: int = Field(
        2, ge=1, le=64,
        description="onnxruntime threads per embedding call of a server: two embed a question "
        "in ~7 ms instead of ~9 at the same throughput under load (bench/README.md).",
    )
    ingest_threads: int = Field(
        2, ge=1, le=64,
        description="Model runs `docent ingest` makes side by side, each on one onnxruntime "
        "thread: it runs alone, so it may use every core (bench/README.md has measurements).",
    )
    ingest_batch_size: int = Field(
        2, ge=1, le=256,
        description="Chunks per model run at ingestion; small batches of chunks sorted by "
        "length waste little on padding (bench/README.md has measurements).",
    )

    # --- HTTP ---
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    max_message_chars: int = Field(10000, ge=1, le=100000, description="Longest question.")
    max_body_bytes: int = Field(
        1_048_576, ge=1024, le=100 * 1_048_576,
        description="Largest request body; a larger one is refused (413) before it is parsed.",
    )
    header_timeout_seconds: float = Field(
        10.0, gt=0, le=300,
        description="A connection must send a whole request head within this time (of opening, "
        "or of the request's first byte) or it is closed.",
    )
    body_timeout_seconds: float = Field(
        30.0, gt=0, le=600,
        description="A request body must arrive whole within this time of its head, or the "
        "connection is closed.",
    )
    keep_alive_seconds: int = Field(
        75, ge=1, le=3600,
        description="An idle kept-alive connection is closed after this many seconds: longer "
        "than clients and proxies keep theirs, or a request they send on it as it closes fails.",
    )
    sse_ping_seconds: float = Field(15.0, gt=0, le=300)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @field_validator("llm_providers", "cors_origins", "trusted_proxies", mode="before")
    @classmethod
    def _split_commas(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_addresses(cls, value: list[str]) -> list[str]:
        for entry in value:
            if entry == "*":
                continue
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(
                    f"{entry!r} is not an IP address or network (such as 10.0.0.5, "
                    "10.0.0.0/8 or ::1), nor '*'"
                ) from None
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(
            ("redis://", "rediss://", "unix://")
        ):
            raise ValueError("a Redis URL starts with redis://, rediss:// or unix://")
        return value

    @field_validator("collection")
    @classmethod
    def _chroma_collection_name(cls, value: str) -> str:
        check_collection_name(value)
        if len(value) > MAX_COLLECTION_CHARS:
            raise ValueError(
                f"a collection name must be at most {MAX_COLLECTION_CHARS} characters: docent "
                "keeps answer-unit vectors in a companion collection named <name>-units"
            )
        return value

    @field_validator("llm_providers")
    @classmethod
    def _known_providers(cls, value: list[str]) -> list[str]:
        unknown = [p for p in value if p not in PROVIDERS]
        if unknown:
            raise ValueError(f"unknown provider(s) {unknown}; choose from {list(PROVIDERS)}")
        if len(set(value)) != len(value):
            raise ValueError("a provider appears twice in the chain")
        return value

    @model_validator(mode="after")
    def _keys_for_chosen_providers(self) -> Settings:
        if "gemini" in self.provider_chain and self.google_api_key is None:
            raise ValueError("the gemini provider needs GOOGLE_API_KEY")
        if "openai" in self.provider_chain and self.openai_base_url is None:
            raise ValueError("the openai provider needs DOCENT_OPENAI_BASE_URL")
        return self

    @property
    def provider_chain(self) -> list[Provider]:
        """Providers to try in order; the first that answers wins."""
        if self.llm_providers:
            return [p for p in self.llm_providers if p in PROVIDERS]  # type: ignore[misc]
        if self.llm_provider == "auto":
            return ["gemini", "extractive"] if self.google_api_key else ["extractive"]
        return [self.llm_provider]

    @property
    def effective_provider(self) -> Provider:
        """The first provider of the chain."""
        return self.provider_chain[0]

    @property
    def store_path(self) -> Path:
        """Directory of the embedded Chroma store."""
        return self.data_dir / "chroma"


def env_key(field_name: str) -> str:
    """The environment variable that sets `field_name`."""
    field = Settings.model_fields[field_name]
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    return ENV_PREFIX + field_name.upper()


def load_settings(**overrides: Any) -> Settings:
    """Build Settings, turning validation errors into one message per bad key."""
    try:
        return Settings(**overrides)
    except UnicodeDecodeError as exc:  # only files are decoded: the .env file
        env_file = Settings.model_config.get("env_file")
        raise ConfigError(f"{Path(str(env_file)).resolve()} is {not_utf8(exc)}: save it as "
                          "UTF-8") from None
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            name = str(err["loc"][0]) if err["loc"] else ""
            if name in Settings.model_fields:
                secret = "key" in name or name == "redis_url"  # a URL may hold a password
                shown = "***" if secret else repr(err.get("input"))
                problems.append(f"{env_key(name)}: {err['msg']} (got {shown})")
            else:  # a rule across several keys: its message names them
                problems.append(str(err["msg"]).removeprefix("Value error, "))
        raise ConfigError("invalid configuration: " + "; ".join(problems)) from None


def make_data_dir(settings: Settings) -> None:
    """Create `DOCENT_DATA_DIR` if it is missing; ConfigError naming it when it cannot be
    a folder (a file stands there, a parent cannot be written), before anything loads."""
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "a file is there" if settings.data_dir.is_file() else exc.strerror or str(exc)
        raise ConfigError(f"DOCENT_DATA_DIR {settings.data_dir} cannot be used as the data "
                          f"folder: {reason}") from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide Settings, built on first use."""
    return load_settings()


def describe(settings: Settings) -> dict[str, str]:
    """Every setting by environment key, secrets masked, for `python config.py`."""
    out: dict[str, str] = {}
    for name in Settings.model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            shown = "********" if value.get_secret_value() else ""
        else:
            shown = "" if value is None else str(value)
        out[env_key(name)] = shown
    out["(effective provider)"] = settings.effective_provider
    return out
