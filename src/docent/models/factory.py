"""Build the chain of chat models the settings ask for, first choice first."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from docent.config import Provider, Settings
from docent.models.extractive import ExtractiveChatModel
from docent.models.unit_vectors import AnswerVectors


@dataclass(frozen=True)
class NamedModel:
    """A chat model and the id it is reported and cached under."""

    id: str
    model: BaseChatModel


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
            temperature=0,
            retries=0,  # the agent's own retry policy (LLM_RETRIES) decides
        )
        return NamedModel(f"gemini:{settings.gemini_model}", gemini)
    if provider == "openai":
        from langchain_openai import ChatOpenAI

        key = settings.openai_api_key or SecretStr("not-needed")  # local servers take any key
        openai = ChatOpenAI(
            model=settings.openai_model,
            base_url=str(settings.openai_base_url),
            api_key=key,
            timeout=settings.llm_timeout_seconds,
            temperature=0,
            max_retries=0,
        )
        return NamedModel(f"openai:{settings.openai_model}", openai)
    return NamedModel("extractive", ExtractiveChatModel(vectors=vectors, pool=pool))
