// Functions: each deployed function with its trigger and instances, and what the event log says
// of it over a recent window: events, attempts, successes, failed attempts, retries, dead letters,
// the median and 99th percentile duration of its attempts, and its latest failed attempts; the
// scheduled functions, with their last and next firings and a button that runs one now; the
// tasks of the task queues, with their ETA and attempts, and a button that deletes one; the
// params the deployment resolved (secrets masked); and the log lines its workers write, live. A
// watched package's failed build is shown on top, with the compiler's errors.
import { call, get, emulatorPath, project } from '../api.js';
import { h, replace, section, table, errorNote, time, matchesText, options } from '../dom.js';
import { kindOf, instanceCount } from './overview.js';

const windows = [['300', 'last 5 minutes'], ['3600', 'last hour'], ['86400', 'last day'], ['31536000', 'all']];

export default {
  id: 'functions',
  title: 'Functions',
  areas: ['events', 'functions'],
  async render(container) {
    const windowSelect = h('select', { id: 'stats-window', name: 'window' }, windows.map(([value, label]) => h('option', { value }, label)));
    windowSelect.value = '3600';
    const statsBox = h('div', { id: 'function-stats' });
    const errorsBox = h('div', { id: 'function-errors' });
    const schedulesBox = h('div', { id: 'function-schedules' });
    const queuesBox = h('div', { id: 'function-queues' });
    const buildBox = h('div', { id: 'function-build' });
    const paramsBox = h('div', { id: 'function-params' });
    windowSelect.addEventListener('change', () => refresh());
    const logFunction = h('select', { id: 'log-function', name: 'function' }, h('option', { value: '' }, 'all functions'));
    const logSeverity = h('select', { id: 'log-severity', name: 'severity' },
      ['DEFAULT', 'DEBUG', 'INFO', 'WARNING', 'ERROR'].map((value) => h('option', { value }, value === 'DEFAULT' ? 'any severity' : `${value} and above`)));
    const logText = h('input', { id: 'log-text', type: 'search', name: 'text', placeholder: 'text in the line' });
    const logBox = h('div', { id: 'function-logs', class: 'logs' });
    replace(container, buildBox,
      section('Deliveries', h('form', { class: 'inline', onsubmit: (event) => event.preventDefault() },
        h('label', { for: 'stats-window' }, 'Over the'), windowSelect), statsBox),
      section('Latest errors', errorsBox),
      section('Schedules', schedulesBox),
      section('Task queues', queuesBox),
      section('Params', paramsBox),
      section('Logs', h('form', { class: 'inline', onsubmit: (event) => event.preventDefault() },
        h('label', { for: 'log-function' }, 'From'), logFunction, h('label', { for: 'log-severity' }, 'Showing'), logSeverity,
        h('label', { for: 'log-text', class: 'visually-hidden' }, 'Text'), logText), logBox));

    // The newest lines, newest first; the stream sends the latest 200, then each new one.
    let lines = [];
    let source = null;
    function follow() {
      source?.close();
      const query = new URLSearchParams({ limit: '200', severity: logSeverity.value });
      if (logFunction.value) query.set('function', logFunction.value);
      source = new EventSource(`${emulatorPath}/logs?${query}`);
      // Each connection (the first, or after a reconnection) starts with the latest lines.
      source.onopen = () => { lines = []; scheduleDraw(); };
      source.addEventListener('log', (event) => {
        lines.unshift(JSON.parse(event.data));
        lines.length = Math.min(lines.length, 500);
        scheduleDraw();
      });
    }
    // At most one redraw per frame, however many lines arrive.
    let drawPending = false;
    function scheduleDraw() {
      if (drawPending) return;
      drawPending = true;
      requestAnimationFrame(() => { drawPending = false; drawLogs(); });
    }
    function drawLogs() {
      const text = logText.value.trim().toLowerCase();
      const shown = lines.filter((line) => matchesText(line, text));
      replace(logBox, table(['Time', 'Severity', 'Function', 'Event', 'Message'], shown.map((line) =>
        h('tr', { 'data-log': line.sequence },
          h('td', { class: 'kv' }, time(line.time)), h('td', { class: `severity-${line.severity}` }, line.severity),
          h('td', {}, line.function), h('td', {}, line.eventId ? h('code', {}, line.eventId) : ''),
          h('td', { class: 'message' }, line.message,
            line.labels ? h('span', { class: 'muted' }, ' ', Object.entries(line.labels).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ')) : ''))),
      { empty: lines.length ? 'No line matches.' : 'No log lines yet: they appear here as the functions write them.' }));
    }
    logFunction.addEventListener('change', follow);
    logSeverity.addEventListener('change', follow);
    logText.addEventListener('input', drawLogs);

    async function refresh() {
      try {
        const [description, stats, scheduled] = await Promise.all([get(`${emulatorPath}/functions`),
          get(`${emulatorPath}/functions:stats?window=${windowSelect.value}`), get(`${emulatorPath}/schedules`)]);
        drawSchedules(scheduled.schedules);
        drawBuild(description.build);
        replace(paramsBox, table(['Name', 'Type', 'Value'], (description.params ?? []).map((param) =>
          h('tr', { 'data-param': param.name }, h('td', {}, h('code', {}, param.name)), h('td', {}, param.type),
            h('td', { class: param.value === null ? 'muted' : '' }, param.value === null ? '(none)' : h('code', {}, param.value)))),
        { empty: 'The deployment has no params and its package no .env values.' }));
        await drawQueues(description.endpoints ?? {});
        const byName = new Map(stats.functions.map((entry) => [entry.function, entry]));
        const names = [...new Set([...Object.keys(description.endpoints ?? {}), ...byName.keys()])].sort();
        if (!options(logFunction, new Set(names), 'all functions') && source) follow();
        const ms = (value) => (value === null || value === undefined ? '–' : `${value < 10 ? value.toFixed(1) : Math.round(value)}`);
        replace(statsBox, table(['Function', 'Kind', 'Instances', 'Events', 'Attempts', 'Succeeded', 'Failed attempts', 'Retrying', 'Dead letters', 'p50 ms', 'p99 ms'],
          names.map((name) => {
            const entry = byName.get(name) ?? {};
            const runtime = description.functions?.[name] ?? {};
            const endpoint = description.endpoints?.[name];
            return h('tr', { 'data-function': name },
              h('td', {}, h('code', {}, name), endpoint ? '' : h('span', { class: 'muted' }, ' (not deployed)')),
              h('td', {}, kindOf(endpoint, runtime)),
              h('td', {}, String(instanceCount(runtime))),
              h('td', {}, String(entry.events ?? 0)), h('td', {}, String(entry.attempts ?? 0)),
              h('td', { class: 'ok' }, String(entry.succeeded ?? 0)),
              h('td', { class: entry.failedAttempts ? 'warn' : '' }, String(entry.failedAttempts ?? 0)),
              h('td', {}, String(entry.retrying ?? 0)),
              h('td', { class: entry.deadLettered ? 'error-text' : '' }, entry.deadLettered ? h('a', { href: '#/events' }, String(entry.deadLettered)) : '0'),
              h('td', {}, ms(entry.p50Ms)), h('td', {}, ms(entry.p99Ms)));
          }), { empty: 'No functions are deployed, and none has had events in this window.' }));
        const failures = stats.functions.flatMap((entry) => entry.lastErrors.map((failure) => ({ ...failure, function: entry.function })))
          .sort((a, b) => b.time.localeCompare(a.time));
        replace(errorsBox, table(['Time', 'Function', 'Event', 'Error'], failures.map((failure) =>
          [time(failure.time), failure.function, h('code', {}, failure.eventId), h('span', { class: 'error-text' }, failure.error)]),
        { empty: 'No errors in this window.' }));
      } catch (error) { replace(statsBox, errorNote(error)); }
    }
    // The last build of a watched package, when it failed: the previous deployment still serves.
    function drawBuild(build) {
      if (!build || build.state !== 'failed') { replace(buildBox); return; }
      replace(buildBox, h('section', { class: 'build-failed', role: 'alert' },
        h('h2', {}, 'The last build failed'),
        h('p', {}, 'The previous deployment keeps serving. ', time(build.time)),
        h('pre', { class: 'error-text' }, build.output ?? '')));
    }
    // Each scheduled function; "Run now" fires it once, now, and says how that run went.
    function drawSchedules(schedules) {
      replace(schedulesBox, table(['Function', 'Schedule', 'Time zone', 'Last firing (or deploy)', 'Next firing', ''], schedules.map((entry) => {
        const note = h('span', { class: 'muted' });
        return h('tr', { 'data-schedule': entry.function },
          h('td', {}, h('code', {}, entry.function)), h('td', {}, h('code', {}, entry.schedule)), h('td', {}, entry.timeZone),
          h('td', { class: 'kv' }, entry.lastFiring ? time(entry.lastFiring) : '–'),
          h('td', { class: 'kv' }, entry.nextFiring ? time(entry.nextFiring) : '–'),
          h('td', {}, h('button', { 'data-run': entry.function, onclick: async () => {
            replace(note, ' running…');
            try {
              const { body } = await call('POST', `${emulatorPath}/functions/${encodeURIComponent(entry.function)}:trigger`,
                { body: { event: { time: new Date().toISOString() } } });
              replace(note, body.status === 'succeeded' ? ' ran' : h('span', { class: 'error-text' }, ` ${body.status}: ${body.error ?? body.reason ?? ''}`));
            } catch (error) { replace(note, errorNote(error)); }
          } }, 'Run now'), note));
      }), { empty: 'No scheduled functions are deployed.' }));
    }

    // Each task-queue function's tasks, through the Cloud Tasks API the emulator serves: those
    // waiting or running, and those finished within the hour their ids stay taken.
    async function drawQueues(endpoints) {
      const queues = Object.entries(endpoints).filter(([, endpoint]) => endpoint.taskQueueTrigger)
        .map(([name, endpoint]) => ({ name, location: endpoint.region?.[0] ?? 'us-central1' }));
      const lists = await Promise.all(queues.map(({ name, location }) =>
        get(`/projects/${encodeURIComponent(project)}/locations/${location}/queues/${encodeURIComponent(name)}/tasks`)));
      const rows = queues.flatMap((queue, index) => (lists[index].tasks ?? []).map((task) => ({ queue, task })));
      const waiting = (task) => task.state === 'queued' || task.state === 'dispatching';
      rows.sort((a, b) => Number(waiting(b.task)) - Number(waiting(a.task)) || a.task.scheduleTime.localeCompare(b.task.scheduleTime));
      replace(queuesBox, table(['Queue', 'Task', 'State', 'ETA', 'Attempts', 'Last answer', ''], rows.slice(0, 200).map(({ queue, task }) => {
        const id = task.name.split('/').pop();
        const last = task.lastAttempt;
        return h('tr', { 'data-task': id },
          h('td', {}, h('code', {}, queue.name)), h('td', {}, h('code', {}, id)),
          h('td', { class: task.state === 'failed' ? 'error-text' : task.state === 'succeeded' ? 'ok' : '' }, task.state),
          h('td', { class: 'kv' }, time(task.scheduleTime)), h('td', {}, String(task.dispatchCount)),
          h('td', { class: 'message' }, last ? (last.error ?? String(last.responseStatus?.code ?? '')) : '–'),
          h('td', {}, waiting(task) ? h('button', { 'data-delete-task': id, onclick: async () => {
            try {
              await call('DELETE', `/${task.name}`);
              await refresh();
            } catch (error) { replace(queuesBox, errorNote(error)); }
          } }, 'Delete') : ''));
      }), { empty: queues.length ? 'No tasks: enqueue one with firebase-admin\'s task_queue, or context.tasks.enqueue.' : 'No task queues are deployed.' }));
    }

    await refresh();
    follow();
    return { refresh, stop: () => source?.close() };
  },
};
