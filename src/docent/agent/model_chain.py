"""The models a run may ask, in order: each with its own deadline and retries, then the next.

A provider whose circuit is open (it failed recently) is skipped without a call.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.exceptions import ContextOverflowError, ModelInvalidRequestError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool

from docent.agent.breaker import CircuitBreaker, CircuitOpenError
from docent.agent.deadline import within_deadline
from docent.agent.retry import is_retryable_model_error, retrying
from docent.config import Settings
from docent.failures import log_failure
from docent.models.factory import NamedModel
from docent.models.plain_text import tool_turns_as_text

log = logging.getLogger(__name__)


def model_id_of(model: BaseChatModel) -> str:
    """A stable name for a model, used in cache keys and response metadata."""
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return model._llm_type


class ModelChain:
    """A fallback chain of chat models, tools bound once."""

    def __init__(
        self,
        models: BaseChatModel | Sequence[NamedModel],
        tools: Sequence[BaseTool],
        settings: Settings,
        model_id: str | None = None,
    ) -> None:
        self.models = (
            [NamedModel(model_id or model_id_of(models), models)]
            if isinstance(models, BaseChatModel)
            else list(models)
        )
        if not self.models:
            raise ValueError("a model chain needs at least one model")
        with_tools = [m for m in self.models if m.native_tools]
        self._with_tools: dict[str, Runnable[Any, Any]] = {
            m.id: m.model.bind_tools(list(tools)) for m in with_tools
        }
        # The first turn of `first_search=tool`: the search is required, by name.
        self._forced: dict[str, Runnable[Any, Any]] = {
            m.id: m.model.bind_tools(list(tools), tool_choice=tools[0].name)
            for m in with_tools
        } if tools else {}
        # A model without tool support reads the searches as text, whatever the mode.
        self._plain: dict[str, Runnable[Any, Any]] = {
            m.id: m.model if m.native_tools else RunnableLambda(tool_turns_as_text) | m.model
            for m in self.models
        }
        self._settings = settings
        self.breaker = CircuitBreaker(
            settings.llm_breaker_failures, settings.llm_breaker_cooldown_seconds
        )

    @property
    def primary(self) -> str:
        return self.models[0].id

    @property
    def primary_cache_id(self) -> str:
        """The first model's id and endpoint: what its cached replies are keyed by."""
        return self.models[0].cache_id

    @property
    def last(self) -> str:
        return self.models[-1].id

    async def ask(
        self,
        prompt: list[Any],
        tools: Literal["off", "on", "required"],
        config: RunnableConfig,
        start_at: str | None,
    ) -> tuple[AIMessage | None, str | None, list[BaseException]]:
        """The first reply the chain gives, the id of the model that gave it, the failures.

        Within a run the chain is sticky: once a model has fallen back, later calls start
        at the model that answered instead of retrying the failed one. Each call has one
        deadline (`llm_timeout_seconds`), streaming included; a timeout is not retried.
        """
        ids = [m.id for m in self.models]
        first = ids.index(start_at) if start_at in ids else 0
        failures: list[BaseException] = []
        s = self._settings
        request_id = (config.get("metadata") or {}).get("query_id")
        for named in self.models[first:]:
            fell_back = named is not self.models[-1]
            try:
                # An open circuit sends calls to the next provider; the last one of the
                # chain has none after it, so it is always tried (a single failure of a
                # single provider must not refuse every question for the cool-down).
                if fell_back:
                    self.breaker.check(named.id)
            except CircuitOpenError as skipped:
                failures.append(skipped)
                log.warning(str(skipped) + "; falling back",
                            extra={"request_id": request_id, "category": "llm"})
                continue
            runnable = {"on": self._with_tools, "required": self._forced}.get(tools, {}).get(
                named.id, self._plain[named.id]
            )
            try:
                async for attempt in retrying(
                    s.llm_retries, s.retry_max_wait_seconds, log_retry(named.id),
                    retry_if=is_retryable_model_error,
                ):
                    with attempt:
                        reply = await within_deadline(
                            runnable.ainvoke(prompt, config), s.llm_timeout_seconds,
                            f"model {named.id}",
                        )
            except Exception as exc:  # noqa: BLE001 - every failure moves down the chain
                failures.append(exc)
                # A request the provider refused as invalid says nothing about its health.
                opened = not isinstance(exc, ModelInvalidRequestError | ContextOverflowError) and (
                    self.breaker.failed(named.id, exc)
                )
                event = f"model {named.id} failed" + ("; falling back" if fell_back else "")
                if opened:
                    event += f"; skipped for {s.llm_breaker_cooldown_seconds:g} s"
                log_failure(log, exc, where="llm", request_id=request_id, event=event)
                continue
            self.breaker.succeeded(named.id)
            assert isinstance(reply, AIMessage)
            return reply, named.id, failures
        return None, None, failures


def log_retry(what: str) -> Any:
    """A tenacity `before_sleep` hook that logs the failed attempt."""

    def before_sleep(retry_state: Any) -> None:
        log.warning(
            "%s attempt %d failed (%s); retrying",
            what,
            retry_state.attempt_number,
            type(retry_state.outcome.exception()).__name__,
        )

    return before_sleep
