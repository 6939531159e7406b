"""A deterministic stand-in for Gemini, so a real google-adk Runner or api_server runs the test
agents without a network: the Python twin of test/agents/scripted-model/scripted-llm.ts.

From the last user content it is sent: function responses give one text line each,
`Tool <name> returned <JSON>`; text matching a trigger gives one function call per match (two
matches, two calls in one model turn); other text gives `Noted: <text>`.
"""

from __future__ import annotations

import json
import re
from typing import AsyncGenerator, Callable

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

Trigger = tuple[re.Pattern, Callable[[re.Match], tuple[str, dict]]]


class ScriptedLlm(BaseLlm):
    model: str = "scripted"
    triggers: list = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        yield LlmResponse(content=self._reply(llm_request.contents))

    def _reply(self, contents: list[types.Content]) -> types.Content:
        last = next((content for content in reversed(contents) if content.role == "user"), None)
        parts = (last.parts if last else None) or []
        responses = [part.function_response for part in parts if part.function_response]
        if responses:
            lines = [f"Tool {r.name} returned {json.dumps(r.response, separators=(',', ':'))}" for r in responses]
            return types.Content(role="model", parts=[types.Part(text="\n".join(lines))])
        text = "\n".join(part.text for part in parts if part.text).strip()
        calls = sorted(
            (match.start(), *to_call(match)) for pattern, to_call in self.triggers for match in pattern.finditer(text)
        )
        if calls:
            return types.Content(
                role="model",
                parts=[types.Part(function_call=types.FunctionCall(name=name, args=args)) for _, name, args in calls],
            )
        return types.Content(role="model", parts=[types.Part(text=f"Noted: {text}" if text else "Nothing to do.")])
