// Overview: the project, the services and their routes, the deployed functions, and Export.
import { call, get, info, emulatorPath } from '../api.js';
import { h, replace, section, table, errorNote } from '../dom.js';

export default {
  id: 'overview',
  title: 'Overview',
  areas: ['functions'],
  async render(container) {
    const functionsBox = h('div');
    const googleBox = h('div');
    const exportResult = h('div', { 'aria-live': 'polite' });
    const exportPath = h('input', { id: 'export-path', name: 'path', placeholder: '/absolute/directory', size: 40, required: true });
    const exportForm = h('form', { class: 'inline', onsubmit: async (event) => {
      event.preventDefault();
      try {
        const { body } = await call('POST', `${emulatorPath}/export`, { body: { path: exportPath.value } });
        replace(exportResult, h('p', { class: 'ok' }, `Exported to ${body.path}.`));
      } catch (error) {
        replace(exportResult, errorNote(error));
      }
    } }, h('label', { for: 'export-path' }, 'Directory'), exportPath, h('button', { type: 'submit' }, 'Export'));

    replace(container,
      section('Project',
        h('dl', { class: 'facts' },
          h('dt', {}, 'Project'), h('dd', {}, info.project),
          h('dt', {}, 'Database instance'), h('dd', {}, info.databaseInstance),
          h('dt', {}, 'Base URL'), h('dd', {}, location.origin))),
      section('Services', table(['Service', 'Routes'], info.services.map((service) =>
        [service.name, h('ul', { class: 'routes' }, service.routes.map((route) => h('li', {}, h('code', {}, route))))]))),
      section('Google\u2019s emulators', h('p', { class: 'hint' },
        'Firestore and Pub/Sub run on Google\u2019s own emulators, started when a function triggers on them; their events reach functions through this emulator\u2019s outbox. `eval "$(functions emulators:env)"` points clients at them.'),
        googleBox),
      section('Functions', functionsBox),
      section('Export', h('p', { class: 'hint' },
        'Writes the whole state (Remote Config versions, database trees, users, devices, inboxes, analytics) to a directory of this machine; `functions emulators:start --import DIR` starts from it.'),
        exportForm, exportResult));

    async function refresh() {
      try {
        const description = await get(`${emulatorPath}/functions`);
        replace(functionsBox, functionsTable(description));
        replace(googleBox, googleTable((await get('/emulator/v1/info')).googleEmulators ?? []));
      } catch (error) {
        replace(functionsBox, errorNote(error));
      }
    }
    await refresh();
    return { refresh };
  },
};

function googleTable(emulators) {
  return table(['Emulator', 'Status', 'Address', 'Variable', 'Restarts'], emulators.map((emulator) =>
    [emulator.name, emulator.status, emulator.address ? h('code', {}, emulator.address) : '',
      h('code', {}, emulator.variable), String(emulator.restarts)]));
}

function functionsTable(description) {
  const running = description.functions ?? {};
  const endpoints = Object.entries(description.endpoints ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return table(['Function', 'Kind', 'Trigger', 'Instances', 'Health'], endpoints.map(([name, endpoint]) => {
    const runtime = running[name] ?? {};
    return [
      h('code', {}, name),
      kindOf(endpoint, runtime),
      trigger(endpoint, runtime),
      `${instanceCount(runtime)} of ${runtime.maxInstances ?? '?'}`,
      (description.skipped ?? []).includes(name) ? h('span', { class: 'warn' }, 'skipped') : health(runtime),
    ];
  }), { empty: 'No functions are deployed. Run `functions deploy` (or ./deploy.sh).' });
}

/** A function's kind, from its manifest endpoint and what the emulator runs of it. */
export function kindOf(endpoint, runtime) {
  return runtime?.kind ?? (endpoint?.scheduleTrigger ? 'schedule' : endpoint?.eventTrigger ? 'event' : '');
}

/** How many instances of a function are running. */
export function instanceCount(runtime) {
  return (runtime?.instances ?? []).length;
}

function trigger(endpoint, runtime) {
  if (endpoint.scheduleTrigger) {
    return h('span', {}, 'schedule ', h('code', {}, endpoint.scheduleTrigger.schedule), ` (${endpoint.scheduleTrigger.timeZone ?? 'UTC'})`);
  }
  if (endpoint.eventTrigger) {
    const filters = Object.entries(endpoint.eventTrigger.eventFilters ?? {}).map(([key, value]) => `${key}=${value}`);
    const patterns = Object.entries(endpoint.eventTrigger.eventFilterPathPatterns ?? {}).map(([key, value]) => `${key}~${value}`);
    return h('span', {}, h('code', {}, endpoint.eventTrigger.eventType), [...filters, ...patterns].length ? ` (${[...filters, ...patterns].join(', ')})` : '');
  }
  if (endpoint.taskQueueTrigger) {
    const limits = endpoint.taskQueueTrigger.rateLimits ?? {};
    return h('span', {}, `task queue, ${limits.maxDispatchesPerSecond ?? 500}/s, ${limits.maxConcurrentDispatches ?? 1000} at once`);
  }
  if (runtime.url) return h('a', { href: runtime.url }, runtime.url);
  if (endpoint.blockingTrigger) return h('code', {}, endpoint.blockingTrigger.eventType);
  return '';
}

function health(runtime) {
  const instances = runtime.instances ?? [];
  if (instances.length === 0) return h('span', { class: 'muted' }, 'idle');
  const restarts = instances.reduce((sum, instance) => sum + (instance.restarts ?? 0), 0);
  return h('span', { class: restarts ? 'warn' : 'ok' }, restarts ? `running, ${restarts} restarts` : 'running');
}
