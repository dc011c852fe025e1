"""Answers the commands give agree: one unit for a latency (seconds) across ``plan`` and the
benchmarks, one source for the LLM rates of ``piano plan`` and the README, ``--scale`` refused
where it does not apply, and ``piano server --help`` with the real versions."""

from __future__ import annotations

import json

import pytest

from agent_runtime.app.cli import bench_cost, bench_runtime
from agent_runtime.app.cli.cmd_server import reach
from agent_runtime.app.cli.main import build_parser, main
from agent_runtime.app.doc_figures import Block, blocks, documents
from agent_runtime.app.plan import load_costs, plan
from agent_runtime.app.plan.costs import CURRENT_COST, ROOT
from agent_runtime.config.models import DEFAULT_VERSION, SUPPORTED_VERSIONS

LATENCY_COMMANDS = (
    ["plan", "--agents", "5"],
    ["bench", "runtime"],
    ["bench", "cost"],
    ["bench", "llm"],
)


@pytest.mark.parametrize("command", LATENCY_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_llm_latency_is_seconds_in_every_command(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args([*command, "--llm-latency", "0.3"])
    got = args.llm_latency
    assert (got[0] if isinstance(got, list) else got) == 0.3
    with pytest.raises(SystemExit) as exit_:  # 300 meant as milliseconds: refused, said why
        build_parser().parse_args([*command, "--llm-latency", "300"])
    assert exit_.value.code == 2
    assert "in seconds (300 ms is 0.3)" in capsys.readouterr().err


def test_the_benchmarks_hand_their_simulated_endpoint_milliseconds_of_the_seconds_given() -> None:
    args = build_parser().parse_args(["bench", "runtime", "--llm-latency", "0.25"])
    cfg = bench_runtime._config(3, args.llm_latency * 1000, False)
    assert cfg.llm.simulated_latency_ms == 250.0
    args = build_parser().parse_args(["bench", "cost", "--llm-latency", "0.25", "--world", "none"])
    args.seed, args.agents = None, 2
    assert bench_cost.bench_config(args).llm.simulated_latency_ms == 250.0


def test_plan_requests_in_flight_use_the_latency_in_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", "--agents", "50", "--llm-latency", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["llm_requests_in_flight"] == round(out["llm_calls_per_s"] * 2, 1)
    assert 0 < out["llm_requests_in_flight"] < 100  # not a thousand times too many


def _current_bill() -> dict[str, object]:
    data: dict[str, object] = json.loads((ROOT / CURRENT_COST).read_text())
    return data


def test_plan_asks_the_llm_what_the_current_bill_measured_for_fifty_agents() -> None:
    # the bench wrote its own 50-agent figures when it ran; the plan computes its own from
    # the per-agent-hour rates of the same file: they must agree
    measured = _current_bill()["village_50"]
    assert isinstance(measured, dict)
    for embodied in (False, True):
        p = plan(50, load_costs(), embodied=embodied, cores_per_node=2, memory_gb_per_node=24)
        assert p.llm_requests_per_minute == round(measured["requests_per_minute"])
        assert p.llm_tokens_per_minute == round(measured["tokens_per_minute"])


def test_no_cost_result_is_newer_than_the_current_one() -> None:
    current = _current_bill()["date"]
    for path in (ROOT / "agent_runtime/llm/results").glob("cost-*.json"):
        assert json.loads(path.read_text())["date"] <= current, f"{path.name} is newer"


def _cost_summaries() -> list[Block]:
    found = []
    docs = documents(ROOT / "docs") if (ROOT / "docs").is_dir() else iter(())
    for doc in [ROOT / "README.md", *docs]:
        for b in blocks(doc, doc.read_text("utf-8")):
            if isinstance(b, Block) and b.renderer == "cost-summary":
                found.append(b)
    return found


def test_the_docs_fifty_agent_figures_come_from_the_plans_source() -> None:
    summaries = _cost_summaries()
    assert summaries, "README.md or docs/ should render the bill with a cost-summary block"
    for b in summaries:
        assert b.source == (ROOT / CURRENT_COST).resolve(), f"{b.doc}:{b.line} names {b.source}"


@pytest.mark.parametrize("name", ["tax", "chef", "specialization"])
def test_scale_is_refused_where_it_does_not_apply(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = "no-such-experiment-file.yaml"  # were --scale taken, the run would stop here
    assert main(["experiment", name, missing, "--scale", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "--scale" in err and "culture" in err and name in err


def test_server_help_names_the_real_versions(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["server", "--help"])
    out = capsys.readouterr().out
    assert "DEFAULT_VERSION" not in out and "SUPPORTED_VERSIONS" not in out
    assert f"default {DEFAULT_VERSION}" in out
    assert all(v in out for v in SUPPORTED_VERSIONS)
    assert "--host" in out


def test_server_says_when_it_listens_beyond_loopback() -> None:
    assert "only this machine" in reach("127.0.0.1", 25565)
    for host in ("0.0.0.0", "192.168.1.20"):
        said = reach(host, 25565)
        assert "not loopback" in said and "other computers" in said and ":25565" in said
        assert "offline mode" in said
    assert "192.168.1.20:25565" in reach("192.168.1.20", 25565)
