"""Build the chain of chat models the settings ask for, first choice first."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from docent.config import Provider, Settings
from docent.models.extractive import ExtractiveChatModel
from docent.models.unit_vectors import AnswerVectors

GEMINI_ENDPOINT = "https://generativelanguage.googleapis.com"  # the client's default


@dataclass(frozen=True)
class NamedModel:
    """A chat model, the id it is reported under and the endpoint it calls."""

    id: str
    model: BaseChatModel
    endpoint: str = ""  # base URL of a hosted model; empty for an in-process one
    native_tools: bool = True  # False: offered no tools, shown passages as text

    @property
    def cache_id(self) -> str:
        """What its cached replies are keyed by: the same model name behind another
        server (or another provider) is another model."""
        return f"{self.id}@{self.endpoint}" if self.endpoint else self.id


def build_chat_models(
    settings: Settings, vectors: AnswerVectors | None = None, pool: Executor | None = None
) -> list[NamedModel]:
    """One model per provider of `settings.provider_chain`, in order.

    `vectors` (the retriever's question and answer-unit vectors) let the extractive model
    score sentences by meaning; without them, it scores them by words alone. It composes
    in `pool`.
    """
    return [_build(provider, settings, vectors, pool) for provider in settings.provider_chain]


def _build(
    provider: Provider, settings: Settings, vectors: AnswerVectors | None = None,
    pool: Executor | None = None,
) -> NamedModel:
    if provider == "gemini":
        from langchain_google_genai import ChatGoogleGenerativeAI  # heavy: only when chosen

        gemini = ChatGoogleGenerativeAI(
            model=settings.gemini_model,
            google_api_key=settings.google_api_key,
            base_url=str(settings.gemini_base_url) if settings.gemini_base_url else None,
            timeout=settings.llm_timeout_seconds,
            max_output_tokens=settings.llm_max_output_tokens,
            temperature=0,
            retries=0,  # the agent's own retry policy (LLM_RETRIES) decides
        )
        endpoint = str(settings.gemini_base_url or GEMINI_ENDPOINT)
        return NamedModel(f"gemini:{settings.gemini_model}", gemini, endpoint)
    if provider == "openai":
        from langchain_openai import ChatOpenAI

        key = settings.openai_api_key or SecretStr("not-needed")  # local servers take any key
        openai = ChatOpenAI(
            model=settings.openai_model,
            base_url=str(settings.openai_base_url),
            api_key=key,
            timeout=settings.llm_timeout_seconds,
            **_output_cap(str(settings.openai_base_url), settings.llm_max_output_tokens),
            **_no_chunk_timeout(ChatOpenAI),
            temperature=0,
            max_retries=0,
        )
        return NamedModel(f"openai:{settings.openai_model}", openai,
                          str(settings.openai_base_url), settings.openai_tools)
    return NamedModel("extractive", ExtractiveChatModel(vectors=vectors, pool=pool))


def _output_cap(base_url: str, tokens: int) -> dict[str, Any]:
    """The reply-length cap under the name the endpoint reads.

    langchain-openai sends `max_completion_tokens`, which OpenAI wants; llama.cpp, Ollama,
    older vLLM and most OpenAI-compatible servers read only the older `max_tokens`.
    """
    if urlsplit(base_url).hostname == "api.openai.com":
        return {"max_tokens": tokens}
    return {"extra_body": {"max_tokens": tokens}}


def _no_chunk_timeout(chat_model: type[BaseChatModel]) -> dict[str, Any]:
    """Turn off langchain-openai's per-chunk timeout where it has one: the agent's deadline
    bounds the whole call, and the chunk timeout's `asyncio.wait_for` can swallow the
    deadline's cancellation on Python 3.11, leaving a runaway stream running."""
    known = "stream_chunk_timeout" in chat_model.model_fields
    return {"stream_chunk_timeout": None} if known else {}
