"""The asyncio turn loop: prompts, retries, abort, auto-compaction, tree navigation."""

from .session import AgentBusyError, AgentEvent, AgentSession, ContextUsage, ForkResult, NavigateResult

__all__ = ["AgentBusyError", "AgentEvent", "AgentSession", "ContextUsage", "ForkResult", "NavigateResult"]
