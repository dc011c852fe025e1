"""The ``llm:`` section of a village file.

Defaults give the heuristic brain: ``LLMSettings()`` makes no network calls.
Example::

    llm:
      provider: openai                 # heuristic | openai | simulated
      base_url: http://127.0.0.1:8000/v1   # omit for api.openai.com
      api_key_env: OPENAI_API_KEY      # the *name* of the variable; never the key
      model: gpt-4o-mini
      small_model: gpt-4o-mini         # optional: importance ratings and social summaries
      modules:                         # per-module overrides
        social_awareness: gpt-4o       # shorthand: just the model
        planning: {model: llama3.1, base_url: http://10.0.0.5:8000/v1, api_key_env: null}
      timeout_s: 60
      max_retries: 3
      concurrency: 16
      requests_per_minute: 500
      tokens_per_minute: 200000
      deadlines_s: {high: 10, normal: 6, low: 3}   # longest wait for a slot, then heuristic
      priorities: {planning: high}     # per-module override of the name-derived class
      adaptive_concurrency: true       # follow the endpoint's latency and 429s, <= concurrency
      budget: {max_tokens: 200000, max_usd: 0.50, max_usd_per_hour: 10}   # per agent; rate: village
      prices: {my-model: {input_per_mtok: 0.1, output_per_mtok: 0.2}}
      log_prompts: true
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from agent_runtime.config.errors import FieldProblem
from agent_runtime.config.module_table import MODULE_NAMES
from agent_runtime.config.problems import closest, did_you_mean, located
from agent_runtime.config.strict import Strict


class ModelPrice(Strict):
    """USD per one million tokens; cached input (the provider's prompt-prefix cache) at
    ``cached_input_per_mtok``, None = the full input price."""

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)
    cached_input_per_mtok: float | None = Field(default=None, ge=0)

    @property
    def cached_input(self) -> float:
        c = self.cached_input_per_mtok
        return self.input_per_mtok if c is None else c


#: Published list prices (USD / 1M tokens: input, cached input, output); a village file's
#: ``prices`` entries win. The one price table of the runtime (``piano bench cost`` too).
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "gpt-4o": ModelPrice(input_per_mtok=2.50, cached_input_per_mtok=1.25, output_per_mtok=10.00),
    "gpt-4o-mini": ModelPrice(
        input_per_mtok=0.15, cached_input_per_mtok=0.075, output_per_mtok=0.60
    ),
    "gpt-4.1": ModelPrice(input_per_mtok=2.00, cached_input_per_mtok=0.50, output_per_mtok=8.00),
    "gpt-4.1-mini": ModelPrice(
        input_per_mtok=0.40, cached_input_per_mtok=0.10, output_per_mtok=1.60
    ),
    "gpt-4.1-nano": ModelPrice(
        input_per_mtok=0.10, cached_input_per_mtok=0.025, output_per_mtok=0.40
    ),
    "local": ModelPrice(input_per_mtok=0.0, cached_input_per_mtok=0.0, output_per_mtok=0.0),
}


#: the modules whose calls are small (importance ratings, social summaries): on
#: ``small_model`` when one is configured
SMALL_MODEL_MODULES: tuple[str, ...] = ("memory", "social_awareness")


def check_base_url(v: str | None) -> str | None:
    """An endpoint's URL: http(s)://HOST[:PORT][/path] (None: the SDK's default)."""
    if v is None:
        return v
    try:
        parts = urlsplit(v)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as err:
        raise ValueError(f"{v!r} is not a URL: {err}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"{v!r} is not an http:// or https:// URL with a host "
            "(e.g. http://127.0.0.1:8080/v1 or https://api.openai.com/v1)"
        )
    return v


def check_model_name(v: str | None) -> str | None:
    """A model's name as the endpoint lists it: not empty, no spaces (None: the default)."""
    if v is None:
        return v
    if not v.strip():
        raise ValueError("a model name must not be empty (e.g. gpt-4o-mini, llama3.1:8b)")
    if any(ch.isspace() for ch in v):
        raise ValueError(f"{v!r}: a model name has no spaces (as the endpoint lists it)")
    return v


class ModuleLLMSettings(Strict):
    """Per-module override; unset fields inherit from the section."""

    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    temperature: float | None = Field(default=None, ge=0, le=2)

    _model = field_validator("model")(check_model_name)
    _base_url = field_validator("base_url")(check_base_url)


class LLMBudget(Strict):
    """Per-agent spending cap for the whole run (``max_tokens``, ``max_usd``) and a
    village-wide spending rate (``max_usd_per_hour``: low-priority modules are shed to the
    heuristic first while spending runs ahead of it); ``None`` means unlimited."""

    max_tokens: int | None = Field(default=None, ge=0)
    max_usd: float | None = Field(default=None, ge=0)
    max_usd_per_hour: float | None = Field(default=None, gt=0)


class LLMDeadlines(Strict):
    """Longest wait for a limiter slot per priority class, in seconds (then: heuristic)."""

    high: float = Field(default=10.0, gt=0)
    normal: float = Field(default=6.0, gt=0)
    low: float = Field(default=3.0, gt=0)


class LLMSettings(Strict):
    provider: Literal["heuristic", "openai", "simulated"] = "heuristic"
    base_url: str | None = None  # None = the SDK default (api.openai.com)
    api_key_env: str | None = Field(default="OPENAI_API_KEY", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    model: str = "gpt-4o-mini"
    # a second, smaller model: the small calls (SMALL_MODEL_MODULES) use it unless ``modules``
    # names theirs; None = every module on ``model``
    small_model: str | None = None
    modules: dict[str, ModuleLLMSettings] = Field(default_factory=dict)
    temperature: float | None = Field(default=None, ge=0, le=2)  # None = the module's choice
    # auto: json_schema, falling back per (endpoint, model) to json_object with the schema
    # (llama.cpp's grammar), json_object, then prompt-only
    structured_output: Literal[
        "auto", "json_schema", "json_object_schema", "json_object", "prompt"
    ] = "auto"
    timeout_s: float = Field(default=60.0, gt=0)  # per request; a timed-out one is not retried
    max_retries: int = Field(default=3, ge=0, le=10)
    backoff_base_s: float = Field(default=0.5, ge=0)
    backoff_max_s: float = Field(default=8.0, ge=0)
    concurrency: int = Field(default=16, ge=1)
    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: float | None = Field(default=None, gt=0)
    queue_timeout_s: float = Field(default=60.0, gt=0)  # longest wait for a limiter slot
    deadlines_s: LLMDeadlines = Field(default_factory=LLMDeadlines)  # per priority, <= the above
    priorities: dict[str, Literal["high", "normal", "low"]] = Field(default_factory=dict)
    adaptive_concurrency: bool = True
    budget: LLMBudget = Field(default_factory=LLMBudget)
    prices: dict[str, ModelPrice] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    log_prompts: bool = True
    simulated_latency_ms: float = Field(default=0.0, ge=0)  # provider "simulated" only
    simulated_capacity: int | None = Field(default=None, ge=1)  # requests it serves at once
    # what the simulated provider answers: a schema-synthesised default, or what the module's
    # heuristic policy decides from the same view (labelled simulated, never model output)
    simulated_content: Literal["schema", "heuristic"] = "schema"
    # how the simulated provider reports cached prompt tokens: OpenAI's rule (prompts of 1,024
    # tokens or more, 128-token steps) or a local server's reuse of any shared prefix
    simulated_cache: Literal["openai", "any_prefix"] = "openai"

    @field_validator("modules", mode="before")
    @classmethod
    def _model_shorthand(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: ({"model": m} if isinstance(m, str) else m) for k, m in v.items()}
        return v

    _model = field_validator("model", "small_model")(check_model_name)
    _base_url = field_validator("base_url")(check_base_url)

    @field_validator("modules", "priorities", mode="wrap")
    @classmethod
    def _no_misspelled_module(cls, v: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # keys are module names, or labels of experiments' own calls (e.g. tax_vote); a key
        # that is almost a module name is a typo that would silently change nothing. Said
        # with the problems of the values, all at once.
        keys = [str(k) for k in v] if isinstance(v, dict) else []
        typos = [
            ((key,), f"unknown module {key!r}{did_you_mean(key, MODULE_NAMES)}", key)
            for key in keys
            if key not in MODULE_NAMES and closest(key, MODULE_NAMES) is not None
        ]
        try:
            out = handler(v)
        except ValidationError as err:
            raise located("LLMSettings", typos, err) from None
        if typos:
            raise located("LLMSettings", typos)
        return out

    @field_validator("prices")
    @classmethod
    def _merge_default_prices(cls, v: dict[str, ModelPrice]) -> dict[str, ModelPrice]:
        return {**DEFAULT_PRICES, **v}

    @model_validator(mode="after")
    def _backoff_order(self) -> LLMSettings:
        if self.backoff_max_s < self.backoff_base_s:
            raise ValueError("backoff_max_s must be >= backoff_base_s")
        return self

    def for_module(self, module: str) -> ResolvedModuleLLM:
        """The effective model, endpoint and temperature for one module."""
        o = self.modules.get(module, ModuleLLMSettings())
        small = self.small_model if module in SMALL_MODEL_MODULES else None
        return ResolvedModuleLLM(
            model=o.model or small or self.model,
            base_url=o.base_url if o.base_url is not None else self.base_url,
            api_key_env=o.api_key_env if "api_key_env" in o.model_fields_set else self.api_key_env,
            temperature=o.temperature if o.temperature is not None else self.temperature,
        )


def unknown_llm_keys(
    llm: LLMSettings, calls: Collection[str] = (), at: str = "llm"
) -> list[FieldProblem]:
    """Keys of ``llm.modules`` and ``llm.priorities`` that name neither a module nor one of
    ``calls`` (an experiment's own model calls): each would change nothing. ``at``: the
    section's path in its file."""
    known = (*MODULE_NAMES, *sorted(calls))
    return [
        FieldProblem(
            f"{at}.{field}.{key}",
            f"unknown module or call {key!r}"
            + (did_you_mean(key, known) or f"; known: {', '.join(known)}"),
        )
        for field in ("modules", "priorities")
        for key in getattr(llm, field)
        if key not in known
    ]


class ResolvedModuleLLM(Strict):
    model: str
    base_url: str | None
    api_key_env: str | None
    temperature: float | None
