/**
 * A message box: grows with its text, Enter sends (Shift+Enter is a new line), and `send`
 * receives the trimmed text. The page serves the box disabled, and it is enabled here: text typed
 * before the page's script had wired it would be sent by the browser's own form submission, which
 * reloads the page and loses it.
 * @param {HTMLFormElement} form
 * @param {HTMLTextAreaElement} input
 * @param {(text: string) => Promise<void>} send
 */
export function wireComposer(form, input, send) {
  const grow = () => {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
  };
  input.addEventListener('input', grow);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text === '') return;
    input.value = '';
    grow();
    await send(text);
  });
  input.disabled = false;
  for (const button of form.querySelectorAll('button'))
    if (button.type === 'submit') button.disabled = false;
}
