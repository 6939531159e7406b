"""An agent on ADK's SlackRunner whose risky tool waits for an approval card in the same thread.

ADK's SlackRunner (google.adk.integrations.slack) answers mentions and DMs in threads and forwards
only the text of run events: a tool that needs confirmation stalls there with nothing shown. With
the plugin on its runner, the pause becomes this app's card *in the thread where the person asked*;
once it is decided, the decision resumes the runner and its answer is said in that thread.

    pip install "google-adk[slack]" ./clients/python
    export SLACK_BOT_TOKEN=xoxb-... SLACK_APP_TOKEN=xapp-...          # the SlackRunner's own app
    export APPROVALS_URL=https://approvals.example.com APPROVALS_API_KEY=... \
           APPROVALS_SIGNING_SECRET=... APPROVALS_CHANNEL=C0123456789     # for DMs: see docs
    python examples/slack_runner_agent.py

See docs/slack-runner.md for the two Slack apps this takes, their scopes, and what was run.
"""

import asyncio
import os

from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.integrations.slack import SlackRunner
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import FunctionTool
from slack_bolt.app.async_app import AsyncApp

from adk_slack_approvals.plugin import ApprovalsPlugin, slack_runner_conversation, slack_runner_thread
from adk_slack_approvals.resume import resume_after_decision


def restart_service(service: str) -> dict:
    """Restarts a production service."""
    return {"status": "restarted", "service": service}


def main() -> None:
    slack_app = AsyncApp(token=os.environ["SLACK_BOT_TOKEN"])

    async def on_pause_posted(pause: dict, invocation_context) -> None:
        session = invocation_context.session
        # Where the person talked to the agent, a DM included: the SlackRunner's app answers there.
        place = slack_runner_conversation(session)

        async def say(text: str) -> None:
            if place is not None:
                await slack_app.client.chat_postMessage(channel=place["channel"], thread_ts=place["ts"], text=text)

        await resume_after_decision(plugin, runner, pause["id"], session, say)

    # Poll mode: no api_server fronts this runner, so this process resumes it itself.
    plugin = ApprovalsPlugin(
        environ={**os.environ, "APPROVALS_RESUME": "poll"},
        thread_of=slack_runner_thread,
        on_pause_posted=on_pause_posted,
    )
    agent = LlmAgent(
        name="ops",
        model="gemini-2.5-flash",
        instruction="Restart services when asked.",
        tools=[FunctionTool(restart_service, require_confirmation=True)],
    )
    runner = Runner(
        app=App(name="ops", root_agent=agent, plugins=[plugin]),
        session_service=InMemorySessionService(),
    )
    asyncio.run(SlackRunner(runner, slack_app).start(os.environ["SLACK_APP_TOKEN"]))


if __name__ == "__main__":
    main()
