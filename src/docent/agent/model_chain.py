"""The models a run may ask, in order: each with its own retries, then the next one."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool

from docent.agent.retry import retrying
from docent.config import Settings
from docent.failures import log_failure
from docent.models.factory import NamedModel

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
        self._with_tools: dict[str, Runnable[Any, Any]] = {
            m.id: m.model.bind_tools(list(tools)) for m in self.models
        }
        self._settings = settings

    @property
    def primary(self) -> str:
        return self.models[0].id

    @property
    def last(self) -> str:
        return self.models[-1].id

    async def ask(
        self, prompt: list[Any], tools_on: bool, config: RunnableConfig, start_at: str | None
    ) -> tuple[AIMessage | None, str | None, list[BaseException]]:
        """The first reply the chain gives, the id of the model that gave it, the failures.

        Within a run the chain is sticky: once a model has fallen back, later calls start
        at the model that answered instead of retrying the failed one.
        """
        ids = [m.id for m in self.models]
        first = ids.index(start_at) if start_at in ids else 0
        failures: list[BaseException] = []
        s = self._settings
        for named in self.models[first:]:
            runnable = self._with_tools[named.id] if tools_on else named.model
            try:
                async for attempt in retrying(
                    s.llm_retries, s.retry_max_wait_seconds, log_retry(named.id)
                ):
                    with attempt:
                        reply = await runnable.ainvoke(prompt, config)
            except Exception as exc:  # noqa: BLE001 - every failure moves down the chain
                failures.append(exc)
                fell_back = named is not self.models[-1]
                log_failure(
                    log,
                    exc,
                    where="llm",
                    request_id=(config.get("metadata") or {}).get("query_id"),
                    event=f"model {named.id} failed" + ("; falling back" if fell_back else ""),
                )
                continue
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
