"""A reply cut off at max_tokens: the members the model finished are read, the schema decides."""

from __future__ import annotations

import json

from agent_runtime.llm._schema import close_truncated
from agent_runtime.llm.replies import parse_reply
from modules.controller.decisions import ControllerChoice

# gemma3-270m on the real server, a controller call of test_real_village (CI, 2026-11-25):
# the reason repeated "10/20, " until max_tokens (400) cut the reply inside say_text
LOOPED = (
    '{"kind": "work", "reason": "a few words of why, '
    + "10/20, " * 40
    + '","count": 19745638, "say": "answer", "say_text": "I\'m a farmer. I know all about'
    " the land and water. We are"
)


def test_a_looping_reply_cut_inside_a_string_is_read() -> None:
    choice = parse_reply(ControllerChoice, LOOPED)
    assert choice.kind.value == "work"
    assert choice.count == 64  # clipped to a stack, as for any reply
    assert len(choice.reason) == 160
    assert choice.say is not None and choice.say.value == "answer"
    assert choice.say_text is not None and choice.say_text.endswith("We are")


def test_closing_drops_a_member_without_its_value() -> None:
    assert json.loads(close_truncated('{"kind": "work", "say_te') or "") == {"kind": "work"}
    assert json.loads(close_truncated('{"kind": "work", "count":') or "") == {"kind": "work"}
    nested = close_truncated('{"a": [1, 2, {"b": "x\\"') or ""
    assert json.loads(nested) == {"a": [1, 2, {"b": 'x"'}]}


def test_complete_or_non_object_text_is_left_alone() -> None:
    assert close_truncated('{"kind": "work"}') is None
    assert close_truncated("no json here") is None
    assert close_truncated('{"a": 1}}') is None
