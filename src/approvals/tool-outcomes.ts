/**
 * An approved call's fate after the resume, as the agent's run reported it: the tool ran, or it
 * answered with an error. A fact about the call, which cards and the workflow both read: approved
 * is not the same as done.
 */
export type ToolOutcome = 'ran' | 'failed';
