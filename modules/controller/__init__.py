"""The Cognitive Controller: the one module that decides, from the bottleneck view only.

- ``module.py``: :class:`~modules.controller.module.CognitiveController`, the step: view ->
  policy -> commitment check -> publish;
- ``prompt.py``: the view as prompt text and the heuristic policy in the model's answer type;
- ``decisions.py``: what a policy answers (:class:`ControllerChoice`, ``ControllerOut``) and
  the published :class:`~agent_runtime.state.sections.Decision` made from it;
- ``asking.py``: when the model is asked (only when the view changed in a way that can change
  the decision, and at a ceiling), standing decisions;
- ``plan_steps.py``: the plan step a standing decision follows;
- ``commitment.py``: when a running skill may be replaced, preempted and resumed;
- ``reflexes.py``: eat, move away, answer, keep busy while the model thinks;
- ``rounds.py``: one model call in flight and what reflexes did meanwhile.

Its turns at the endpoint are :class:`agent_runtime.llm.turns.EndpointTurns` (the LLM layer);
its view is :mod:`agent_runtime.bottleneck` (the core: the page and tests read it too).
"""
