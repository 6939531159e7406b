import { h } from './dom.js';

/**
 * The prompts the app's stand-in suggests (`SandboxOptions.suggestions`), as chips above the
 * message box: a click puts the prompt in the box, in its channel, for the person to send.
 * @param {{ text: string, shows: string, channel?: string }[]} suggestions
 * @param {(prompt: { text: string, shows: string, channel?: string }) => void} onPick
 */
export function renderSuggestions(suggestions, onPick) {
  return suggestions.map((prompt) =>
    h(
      'button',
      {
        type: 'button',
        class: 'suggestion',
        title: prompt.shows,
        'data-testid': 'suggestion',
        onclick: () => onPick(prompt),
      },
      h('span', { class: 'suggestion-text' }, prompt.text),
      h('span', { class: 'suggestion-shows' }, prompt.shows),
    ),
  );
}
