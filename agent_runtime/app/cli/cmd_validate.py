"""``piano validate FILE``: check any YAML file the repository ships; exit 2 naming the file
and every field that is wrong, all at once.

The file's kind is told from its data (:mod:`agent_runtime.config.kinds`): an experiment
file is checked whole (protocol and every condition's village: :mod:`experiments.validation`)
and answers its agents, conditions and estimated wall time; a topic file as a village reads
it (its lexicon too); a Kubernetes manifest (several documents) for its shape only, the
cluster checks the rest; anything else is a village file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agent_runtime.app.cli.user_errors import refuse
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.kinds import check_manifests, file_kind
from agent_runtime.config.llm import unknown_llm_keys
from agent_runtime.config.loader import load_config, load_topic, read_yaml_documents, resolve_agents
from experiments.registry import LLM_CALLS
from experiments.validation import validate_experiment_file


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "validate",
        help="check a village, experiment, topic or Kubernetes YAML file",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("config", help="path to a YAML file (village, experiment, topic, manifest)")


def _answer(path: Path) -> str:
    """What the file is, checked; raises ConfigError naming every problem."""
    documents = read_yaml_documents(path)
    match file_kind(documents):
        case "experiment":
            return str(validate_experiment_file(path))
        case "topic":
            topic = load_topic(path)
            return (
                f"{path}: OK — topic file {topic.name!r}: {len(topic.cues)} cues, "
                f"{len(topic.mentions)} topic words, {len(topic.say_for)} lines for and "
                f"{len(topic.say_against)} against"
            )
        case "manifest":
            objects = check_manifests(path, documents)
            return (
                f"{path}: OK — Kubernetes manifest: {', '.join(objects)} (their shape; "
                "`kubectl apply --dry-run=server -f` checks the rest)"
            )
    cfg = load_config(path)
    calls = {c for labels in LLM_CALLS.values() for c in labels}
    unknown = unknown_llm_keys(cfg.llm, calls)
    if unknown:
        raise ConfigError(path, unknown)
    agents = resolve_agents(cfg)
    return (
        f"{path}: OK — village, {len(agents)} agents, world {cfg.world.kind}, "
        f"llm {cfg.llm.provider}, modules {cfg.modules.preset}: {', '.join(cfg.modules.enabled())}"
    )


def run(args: argparse.Namespace) -> int:
    try:
        print(_answer(Path(args.config)))
    except ConfigError as err:
        return refuse(err, "piano validate")
    return 0
