"""Embedded services (redis-server, mosquitto) as child processes on loopback."""

from agent_runtime.services.mosquitto import MosquittoBroker
from agent_runtime.services.process import ChildProcess
from agent_runtime.services.redis_server import RedisServer
from agent_runtime.services.service import LoopbackService, ServiceError

__all__ = ["ChildProcess", "LoopbackService", "MosquittoBroker", "RedisServer", "ServiceError"]
