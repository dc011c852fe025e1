"""Message buses: MQTT (:class:`MqttBus`) and in-process (:class:`InMemoryBus`); topics in
:mod:`.topics`, one model per topic in :mod:`.messages`."""

from agent_runtime.bus import messages, topics
from agent_runtime.bus.memory import InMemoryBus
from agent_runtime.bus.mqtt import MqttBus, parse_mqtt_url

__all__ = ["InMemoryBus", "MqttBus", "messages", "parse_mqtt_url", "topics"]
