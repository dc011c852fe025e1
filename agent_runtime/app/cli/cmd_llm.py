"""``piano llm check [CONFIG] [--base-url URL --model NAME] [--json]``.

Asks an OpenAI-compatible endpoint what it can do for a village (reachable,
model listed, which structured-output modes work, prompt and generation
tokens per second, parallelism) and recommends a concurrency and the modules
to keep on the model (:mod:`agent_runtime.llm.check`). The endpoint comes from
a village file's ``llm:`` section, or from ``--base-url``/``--model`` (which
also override the file). Exit status: 0 if a structured-output mode works, 1
if not, 2 for a bad village file or missing API key.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from agent_runtime.app.cli.user_errors import refuse
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.llm import LLMSettings
from agent_runtime.config.loader import load_config
from agent_runtime.llm.check import check_endpoint, render_table

_DEFAULT_BASE_URL = "https://api.openai.com/v1"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("llm", help="inspect LLM endpoints")
    llm_sub = p.add_subparsers(dest="llm_command", required=True, metavar="ACTION")
    c = llm_sub.add_parser("check", help="probe an endpoint: modes, tokens/s, recommended settings")
    c.add_argument("config", nargs="?", help="village YAML whose llm: section to check")
    c.add_argument("--base-url", help="endpoint, e.g. http://127.0.0.1:8080/v1")
    c.add_argument("--model", help="model name as the endpoint lists it")
    c.add_argument("--api-key-env", help="name of the variable holding the API key (default: none)")
    c.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _settings(args: argparse.Namespace) -> LLMSettings:
    if args.config:
        return load_config(args.config).llm
    return LLMSettings(provider="openai", api_key_env=None)


def run(args: argparse.Namespace) -> int:
    try:
        llm = _settings(args)
    except ConfigError as err:
        return refuse(err, "piano llm")
    base_url = args.base_url or llm.base_url or _DEFAULT_BASE_URL
    model = args.model or llm.model
    key_env = args.api_key_env if args.api_key_env is not None else llm.api_key_env
    if args.base_url and args.api_key_env is None and not args.config:
        key_env = None
    api_key = "not-needed"
    if key_env:
        value = os.environ.get(key_env)
        if not value:
            print(f"piano llm check: variable {key_env} is not set", file=sys.stderr)
            return 2
        api_key = value
    report = asyncio.run(check_endpoint(base_url, model, api_key=api_key, timeout_s=args.timeout))
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(render_table(report))
    return 0 if report.ok else 1
