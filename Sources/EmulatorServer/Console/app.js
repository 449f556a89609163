// The console's shell: the navigation, the page for the address's #fragment, and live updates.
import { onChange, disconnect, project } from './api.js';
import { h, replace, errorNote } from './dom.js';
import overview from './pages/overview.js';
import events from './pages/events.js';
import functionsPage from './pages/functions.js';
import remoteConfig from './pages/remote-config.js';
import messaging from './pages/messaging.js';
import database from './pages/database.js';
import authentication from './pages/authentication.js';
import analytics from './pages/analytics.js';

const pages = [overview, functionsPage, events, remoteConfig, database, authentication, messaging, analytics];
const main = document.getElementById('main');
const nav = document.getElementById('nav');
let current = null;

document.getElementById('project').textContent = project;
replace(nav, h('ul', {}, pages.map((page) =>
  h('li', {}, h('a', { href: `#/${page.id}`, 'data-page': page.id }, page.title)))));

/** Shows the page the fragment names (`#/events`, `#/remote-config?version=3`). */
async function show() {
  const [id, query] = (location.hash.replace(/^#\/?/, '') || pages[0].id).split('?');
  const page = pages.find((candidate) => candidate.id === id) ?? pages[0];
  current?.stop?.();
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.page === page.id) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${page.title} · Emulator console`;
  const container = h('div', { class: 'page' });
  replace(main, h('h1', {}, page.title), container);
  const view = { stop: null };
  current = view;
  try {
    const live = await page.render(container, new URLSearchParams(query ?? ''));
    if (current !== view) return live?.stop?.();
    const unsubscribe = onChange(page.areas, (areas) => live?.refresh?.(areas));
    view.stop = () => { unsubscribe(); live?.stop?.(); };
  } catch (error) {
    replace(container, errorNote(error));
  }
}

window.addEventListener('hashchange', () => { show(); main.focus(); });
// A page left for another may be kept whole (the back/forward cache) with its streams open, and
// browsers allow only six connections to one host: close them on leaving, start afresh on return.
window.addEventListener('pagehide', () => { current?.stop?.(); disconnect(); });
window.addEventListener('pageshow', (event) => { if (event.persisted) location.reload(); });
show();
