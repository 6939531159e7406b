"""App `py_payments`: the Python twin of test/agents/payments. `transfer <n>` calls
`transfer_money(amount=n)`, which requires confirmation (FunctionTool(require_confirmation=True));
`transfer <a> and transfer <b>` makes two gated calls in one model turn. Each run of the tool is
recorded in the session state under `ran:<call id>` (one key per call: parallel calls of one turn
write their state changes side by side), so a test can count how many times it ran."""

import re
import sys
from pathlib import Path

from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool
from google.adk.tools.tool_context import ToolContext

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from scripted_llm import ScriptedLlm  # noqa: E402


def transfer_money(amount: int, tool_context: ToolContext) -> dict:
    """Transfers money to savings."""
    tool_context.state[f"ran:{tool_context.function_call_id}"] = amount
    return {"status": "transferred", "amount": amount}


def payments_agent(name: str) -> LlmAgent:
    return LlmAgent(
        name=name,
        description="Moves money once someone approves.",
        instruction="Use the tools to do what the user asks.",
        model=ScriptedLlm(
            triggers=[(re.compile(r"\btransfer (\d+)"), lambda m: ("transfer_money", {"amount": int(m.group(1))}))]
        ),
        tools=[FunctionTool(transfer_money, require_confirmation=True)],
    )


root_agent = payments_agent("py_payments")
