/** The sandbox's page API (`/sandbox/*`): the same operations tests drive through the handle. */

async function get(path) {
  const response = await fetch(`/sandbox/${path}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`GET /sandbox/${path}: HTTP ${response.status}`);
  return response.json();
}

async function post(path, body) {
  const response = await fetch(`/sandbox/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(json.error ?? `POST /sandbox/${path}: HTTP ${response.status}`);
  return json;
}

export const api = {
  workspace: () => get('workspace'),
  /** @param {string} user */
  state: (user) => get(`state?user=${encodeURIComponent(user)}`),
  calls: () => get('calls'),
  command: (body) => post('command', body),
  click: (body) => post('click', body),
  submit: (body) => post('submit', body),
  close: (body) => post('close', body),
  message: (body) => post('message', body),
  dismiss: (body) => post('dismiss', body),
  homeOpened: (body) => post('home-opened', body),
};

/**
 * Live updates: calls `onChange` with the state version whenever something changed.
 * EventSource reconnects by itself (the server asks for 1 s).
 * @param {(version: number) => void} onChange
 */
export function subscribe(onChange) {
  const source = new EventSource('/sandbox/events');
  source.addEventListener('change', (event) => {
    try {
      onChange(JSON.parse(event.data).version);
    } catch {
      onChange(Number.NaN);
    }
  });
  return source;
}
