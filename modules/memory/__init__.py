"""Memory stream of a PIANO agent: records, embeddings, retrieval, importance, reflection.

A library the memory-related modules call; it owns no task or schedule.
See ``README.md`` in this folder for the API and the Redis layout.
"""

from modules.memory.encoder import Encoder, HashingEncoder, MiniLMEncoder, find_model_dir
from modules.memory.importance import (
    AsyncImportanceRater,
    ImportanceRater,
    ImportanceRating,
    heuristic_importance,
    render_importance_prompt,
)
from modules.memory.llm_policies import (
    ImportanceBrain,
    ReflectionBrain,
    render_insights_prompt,
    render_questions_prompt,
)
from modules.memory.persistence import stream_prefix
from modules.memory.prompting import RenderedPrompt, numbered_memories, quote_untrusted
from modules.memory.records import (
    MEMORY_KINDS,
    MemoryKind,
    MemoryRecord,
    NewMemory,
    estimate_tokens,
    ticks_to_hours,
)
from modules.memory.reflection import (
    AskQuestions,
    HeuristicReflection,
    Insight,
    Insights,
    MakeInsights,
    ReflectionConfig,
    ReflectionQuestions,
    ReflectionResult,
    Reflector,
    should_reflect,
)
from modules.memory.retrieval import (
    DEFAULT_DECAY,
    DEFAULT_WEIGHTS,
    Candidates,
    ScoredMemory,
    Scores,
    min_max,
    score,
    select,
)
from modules.memory.seeding import SEED_IMPORTANCE, split_sentences
from modules.memory.store import MemoryStream
from modules.memory.trigger import REFLECTION_COUNTED_KINDS

__all__ = [
    "DEFAULT_DECAY",
    "DEFAULT_WEIGHTS",
    "MEMORY_KINDS",
    "REFLECTION_COUNTED_KINDS",
    "SEED_IMPORTANCE",
    "AskQuestions",
    "AsyncImportanceRater",
    "Candidates",
    "Encoder",
    "HashingEncoder",
    "HeuristicReflection",
    "ImportanceBrain",
    "ImportanceRater",
    "ImportanceRating",
    "Insight",
    "Insights",
    "MakeInsights",
    "MemoryKind",
    "MemoryRecord",
    "MemoryStream",
    "MiniLMEncoder",
    "NewMemory",
    "ReflectionBrain",
    "ReflectionConfig",
    "ReflectionQuestions",
    "ReflectionResult",
    "Reflector",
    "RenderedPrompt",
    "ScoredMemory",
    "Scores",
    "estimate_tokens",
    "find_model_dir",
    "heuristic_importance",
    "min_max",
    "numbered_memories",
    "quote_untrusted",
    "render_importance_prompt",
    "render_insights_prompt",
    "render_questions_prompt",
    "score",
    "select",
    "should_reflect",
    "split_sentences",
    "stream_prefix",
    "ticks_to_hours",
]
