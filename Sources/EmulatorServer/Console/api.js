// The emulator's REST routes, as the console calls them: same origin, with the emulator's
// owner credential, so each action goes through the same validation as any client's.

/** An answer outside 2xx, with the service's own message. */
class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The emulator's owner credential, which every call of the console carries. */
const owner = { Authorization: 'Bearer owner' };

/** Calls a route; returns `{body, headers}`, or throws an ApiError with the service's message. */
export async function call(method, path, { body, headers = {} } = {}) {
  const init = { method, headers: { ...owner, ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(path, init);
  if (!response.ok) throw await failure(response);
  return { body: await bodyOf(response), headers: response.headers };
}

/** Opens a server-sent-event stream with the owner credential (which EventSource cannot send);
 * returns the response, whose body the caller reads, or throws an ApiError. */
export async function openStream(path, signal) {
  const response = await fetch(path, { headers: { ...owner, Accept: 'text/event-stream' }, signal });
  if (!response.ok) throw await failure(response);
  return response;
}

/** The ApiError of an answer outside 2xx. */
async function failure(response) {
  return new ApiError(response.status, messageOf(await bodyOf(response), response));
}

/** A response's body: JSON when it parses, else its text; `null` when empty. */
async function bodyOf(response) {
  const text = await response.text();
  try { return text ? JSON.parse(text) : null; } catch { return text; }
}

/** The message of a Firebase-style error body (`{"error": {"message"}}` or `{"error": "..."}`). */
function messageOf(body, response) {
  if (body && typeof body === 'object') {
    const error = body.error;
    if (typeof error === 'string') return error;
    if (error && typeof error.message === 'string') return error.message;
  }
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 300);
  return `HTTP ${response.status} ${response.statusText}`;
}

export const get = async (path) => (await call('GET', path)).body;

/** The project, the default database instance and the services, from the emulator. */
export const info = await get('/emulator/v1/info');
export const project = info.project;
export const emulatorPath = `/emulator/v1/projects/${encodeURIComponent(project)}`;
export const adminPath = `/v1/projects/${encodeURIComponent(project)}`;

// Live updates: one stream of the areas each commit changed.
const listeners = new Set();
let source;

/** Calls `callback(areas)` after commits that change one of `areas`; returns a function that stops. */
export function onChange(areas, callback) {
  const listener = { areas: new Set(areas), callback };
  listeners.add(listener);
  connect();
  return () => listeners.delete(listener);
}

/** Closes the stream of changes (the page is being left). */
export function disconnect() {
  source?.close();
  source = undefined;
}

function connect() {
  if (source) return;
  source = new EventSource(`${emulatorPath}/changes`);
  const live = document.getElementById('live');
  source.onopen = () => { live.textContent = 'live'; live.className = 'live on'; };
  source.onerror = () => { live.textContent = 'reconnecting…'; live.className = 'live off'; };
  source.addEventListener('change', (event) => {
    const areas = JSON.parse(event.data).areas;
    for (const listener of listeners) {
      if (areas.some((area) => listener.areas.has(area))) listener.callback(areas);
    }
  });
}
