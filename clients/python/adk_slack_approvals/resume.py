"""Resuming a runner in this process once its pause is decided (the `poll` resume mode), for
runners that no api_server fronts, e.g. ADK's SlackRunner: wait for the decision, hand it to the
plugin (which checks each attested call when it runs), and run the decision's `newMessage`.

    plugin = ApprovalsPlugin(thread_of=slack_runner_thread, on_pause_posted=...)
    async def on_pause_posted(pause, invocation_context):
        await resume_after_decision(plugin, runner, pause["id"], invocation_context.session, say)
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable


async def resume_after_decision(
    plugin: Any,
    runner: Any,
    pause_id: str,
    session: Any,
    on_text: Callable[[str], Awaitable[None]],
    *,
    wait_s: int = 30,
) -> bool:
    """Waits for the decision of `pause_id`, then resumes `session` on `runner` with it; each text
    the agent answers goes to `on_text`. False, with nothing run, when the pause ended without a
    decision to send (cancelled, withdrawn)."""
    from google.genai import types  # google-adk's own dependency: present wherever a runner is

    decision = await asyncio.to_thread(plugin.client.wait_for_decision, pause_id, wait_s)
    if "newMessage" not in decision:
        await on_text("The approval request was closed without a decision; nothing was run.")
        return False
    plugin.accept_decision(decision)
    message = types.Content.model_validate(decision["newMessage"])
    async for event in runner.run_async(user_id=session.user_id, session_id=session.id, new_message=message):
        for part in (event.content.parts if event.content else None) or []:
            if part.text:
                await on_text(part.text)
    return True
