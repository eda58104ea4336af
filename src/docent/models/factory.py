"""Build the chat model the settings ask for."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from docent.config import ConfigError, Settings, env_key
from docent.models.extractive import ExtractiveChatModel


def build_chat_model(settings: Settings) -> tuple[BaseChatModel, str]:
    """(model, model id) for the effective provider; Gemini only with a key."""
    provider = settings.effective_provider
    if provider == "extractive":
        return ExtractiveChatModel(), "extractive"
    if settings.google_api_key is None:
        raise ConfigError(
            f"{env_key('llm_provider')}=gemini needs {env_key('google_api_key')} to be set"
        )
    from langchain_google_genai import ChatGoogleGenerativeAI  # heavy: only when chosen

    model = ChatGoogleGenerativeAI(
        model=settings.gemini_model,
        google_api_key=settings.google_api_key,
        timeout=settings.llm_timeout_seconds,
        temperature=0,
        retries=0,  # the agent's own retry policy (LLM_RETRIES) decides
    )
    return model, f"gemini:{settings.gemini_model}"
