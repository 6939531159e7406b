/**
 * An approved call's fate after the resume, as the agent's run reported it: the tool ran, it
 * answered with an error, or the agent asked for the call again instead of running it
 * (workflow/re-requests.ts). A fact about the call, which cards and the workflow both read:
 * approved is not the same as done.
 */
export type ToolOutcome = 'ran' | 'failed' | 'asked_again';
