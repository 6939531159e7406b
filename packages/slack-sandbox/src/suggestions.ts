/** A prompt the page suggests above its message box: what to type, and what it shows of the app. */
export interface SuggestedPrompt {
  /** What fills the message box, e.g. `/agent restart payments-api`. */
  text: string;
  /** What it shows, in a few words: the chip's tooltip, e.g. "asks a person; offers a grant". */
  shows: string;
  /** The channel it is meant for; absent: wherever the person is. */
  channel?: string;
}
