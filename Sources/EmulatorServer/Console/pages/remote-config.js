// Remote Config: the current template, edited and published with its ETag (a conflict shows
// both versions), the version history, a side-by-side diff of any two versions, and Rollback.
import { call, get, adminPath } from '../api.js';
import { h, replace, section, table, errorNote, time } from '../dom.js';
import { stableJSON, diffLines, diffTable } from '../diff.js';

const templatePath = `${adminPath}/remoteConfig`;

/** The parts of a template one publishes (the version is the service's). */
function editable(template) {
  return { conditions: template?.conditions ?? [], parameters: template?.parameters ?? {}, parameterGroups: template?.parameterGroups ?? {} };
}

/** The colors the Firebase console tags conditions with. */
const tagColors = ['', 'BLUE', 'BROWN', 'CYAN', 'DEEP_ORANGE', 'GREEN', 'INDIGO', 'LIME', 'ORANGE', 'PINK', 'PURPLE', 'TEAL'];

/** Every parameter of the template: the top-level ones and those in groups. */
function allParameters(template) {
  return [...Object.values(template.parameters ?? {}),
    ...Object.values(template.parameterGroups ?? {}).flatMap((group) => Object.values(group.parameters ?? {}))];
}

function valueText(value) {
  if (!value) return '';
  if (value.useInAppDefault) return '(in-app default)';
  if (value.personalizationValue) return '(personalization)';
  return value.value ?? '';
}

export default {
  id: 'remote-config',
  title: 'Remote Config',
  areas: ['remoteConfig'],
  async render(container) {
    let current = null;
    let etag = null;
    let working = null;
    let dirty = false;
    const templateBox = h('div', { id: 'template' });
    const publishBox = h('div', { id: 'publish', 'aria-live': 'polite' });
    const versionsBox = h('div', { id: 'versions' });
    const diffBox = h('div', { id: 'diff' });
    const notice = h('div', { 'aria-live': 'polite' });
    const conditionsNote = h('div', { id: 'conditions-note', 'aria-live': 'polite' });

    replace(container,
      section('Template', notice, templateBox, publishBox),
      section('Versions', versionsBox),
      section('Compare versions', diffBox));

    /** Shows the current template: `answer` is its GET, when the caller already has it. */
    async function load(answer) {
      const { body, headers } = answer ?? await call('GET', templatePath);
      current = body;
      etag = headers.get('etag');
      working = structuredClone(editable(body));
      dirty = false;
      replace(notice);
      drawTemplate();
    }

    function markDirty() {
      dirty = true;
      publishButton.disabled = false;
    }

    const description = h('input', { id: 'publish-description', name: 'description', size: 40, placeholder: 'What changed (optional)' });
    const publishButton = h('button', { type: 'submit', class: 'primary', id: 'publish-button', disabled: true }, 'Publish');
    const publishForm = h('form', { class: 'inline', onsubmit: (event) => { event.preventDefault(); publish(); } },
      h('label', { for: 'publish-description' }, 'Description'), description, publishButton);

    function drawTemplate() {
      const version = current?.version;
      const parameterRows = Object.keys(working.parameters).sort().map((key) => {
        const parameter = working.parameters[key];
        const input = h('input', { 'aria-label': `Default value of ${key}`, 'data-parameter': key, value: valueText(parameter.defaultValue),
          disabled: Boolean(parameter.defaultValue?.useInAppDefault || parameter.defaultValue?.personalizationValue),
          oninput: () => { parameter.defaultValue = { value: input.value }; markDirty(); } });
        return [h('code', {}, key), input, conditionalValues(key, parameter), parameter.valueType ?? 'STRING', parameter.description ?? '',
          h('button', { 'aria-label': `Delete ${key}`, onclick: () => { delete working.parameters[key]; markDirty(); drawTemplate(); } }, 'Delete')];
      });
      const newKey = h('input', { id: 'new-parameter-key', name: 'key', placeholder: 'key', required: true });
      const newValue = h('input', { id: 'new-parameter-value', name: 'value', placeholder: 'default value' });
      const addError = h('span', { 'aria-live': 'polite' });
      const addForm = h('form', { class: 'inline', onsubmit: (event) => {
        event.preventDefault();
        const key = newKey.value.trim();
        if (working.parameters[key]) { replace(addError, errorNote(`'${key}' exists already: change its value above.`)); return; }
        working.parameters[key] = { defaultValue: { value: newValue.value } };
        markDirty();
        drawTemplate();
        document.querySelector(`[data-parameter="${CSS.escape(key)}"]`)?.focus();
      } }, h('label', { for: 'new-parameter-key' }, 'New parameter'), newKey, h('label', { for: 'new-parameter-value' }, 'value'), newValue,
      h('button', { type: 'submit' }, 'Add'), addError);

      const jsonEditor = h('textarea', { id: 'template-json', rows: 14, cols: 80, spellcheck: 'false', 'aria-label': 'The template as JSON' }, stableJSON(working));
      const jsonError = h('div', { 'aria-live': 'polite' });
      const jsonForm = h('details', {},
        h('summary', {}, 'Edit as JSON (parameter groups, value types, descriptions)'),
        jsonEditor,
        h('div', {}, h('button', { type: 'button', onclick: () => {
          try {
            working = editable(JSON.parse(jsonEditor.value));
            markDirty();
            drawTemplate();
          } catch (error) { replace(jsonError, errorNote(`Not JSON: ${error.message}`)); }
        } }, 'Use this JSON'), jsonError));

      replace(templateBox,
        h('p', { class: 'hint' }, version
          ? `Version ${version.versionNumber}, published ${time(version.updateTime)} by ${version.updateUser?.email || 'unknown'} (${version.updateOrigin ?? ''}). ETag ${etag}.`
          : 'No template has been published yet.'),
        h('h3', {}, 'Parameters'),
        table(['Key', 'Default value', 'Conditional values', 'Type', 'Description', ''], parameterRows, { empty: 'No parameters.' }),
        addForm,
        h('h3', {}, 'Conditions'),
        h('p', { class: 'hint' }, 'The first condition that matches a device wins; a parameter\'s values for a condition are set in its row above.'),
        conditionsTable(),
        conditionsNote,
        conditionForm(),
        jsonForm,
        publishForm);
      publishButton.disabled = !dirty;
    }

    /** A parameter's values under conditions, each editable and removable, and a way to add one. */
    function conditionalValues(key, parameter) {
      const values = parameter.conditionalValues ?? {};
      const unused = working.conditions.map((condition) => condition.name).filter((name) => !Object.hasOwn(values, name));
      const rows = Object.entries(values).map(([condition, value]) => {
        const input = h('input', { 'aria-label': `Value of ${key} when ${condition}`, 'data-conditional': `${key}/${condition}`, size: 12,
          value: valueText(value), disabled: Boolean(value.useInAppDefault || value.personalizationValue),
          oninput: () => { values[condition] = { value: input.value }; markDirty(); } });
        return h('div', { class: 'conditional' }, h('span', { class: 'badge' }, condition), input,
          h('button', { type: 'button', class: 'link', 'aria-label': `Remove the value of ${key} when ${condition}`, onclick: () => {
            dropConditionalValue(parameter, condition);
            markDirty();
            drawTemplate();
          } }, '×'));
      });
      const adder = unused.length === 0 ? null : h('select', { 'aria-label': `Add a conditional value to ${key}`, onchange: () => {
        if (!adder.value) return;
        parameter.conditionalValues = { ...values, [adder.value]: { value: parameter.defaultValue?.value ?? '' } };
        markDirty();
        drawTemplate();
        document.querySelector(`[data-conditional="${CSS.escape(`${key}/${adder.value}`)}"]`)?.focus();
      } }, h('option', { value: '' }, '+ value for a condition'), unused.map((name) => h('option', { value: name }, name)));
      return [rows, adder];
    }

    /** The conditions, in priority order, each with its name, expression and color editable. */
    function conditionsTable() {
      const conditions = working.conditions;
      return table(['Priority', 'Name', 'Expression', 'Color', ''], conditions.map((condition, index) => {
        const name = h('input', { 'aria-label': `Name of condition ${index + 1}`, 'data-condition-name': condition.name, value: condition.name, size: 16,
          onchange: () => { rename(condition, name); },
          onkeydown: (event) => { if (event.key === 'Enter') name.blur(); } });
        const expression = h('input', { 'aria-label': `Expression of ${condition.name}`, 'data-condition-expression': condition.name,
          value: condition.expression ?? '', class: 'expression', oninput: () => { condition.expression = expression.value; markDirty(); } });
        const color = h('select', { 'aria-label': `Color of ${condition.name}`, onchange: () => {
          if (color.value) condition.tagColor = color.value; else delete condition.tagColor;
          markDirty();
        } }, tagColors.map((value) => h('option', { value }, value ? value.toLowerCase().replace('_', ' ') : '(none)')));
        color.value = condition.tagColor ?? '';
        const move = (offset) => () => {
          conditions.splice(index, 1);
          conditions.splice(index + offset, 0, condition);
          markDirty();
          drawTemplate();
          focusCondition(condition.name, offset < 0 ? 'up' : 'down');
        };
        return [String(index + 1), name, expression, color, h('span', { class: 'actions' },
          h('button', { type: 'button', 'aria-label': `Move ${condition.name} up`, disabled: index === 0, onclick: move(-1) }, '↑'),
          h('button', { type: 'button', 'aria-label': `Move ${condition.name} down`, disabled: index === conditions.length - 1, onclick: move(1) }, '↓'),
          h('button', { type: 'button', 'aria-label': `Delete ${condition.name}`, onclick: () => {
            conditions.splice(index, 1);
            for (const parameter of allParameters(working)) dropConditionalValue(parameter, condition.name);
            markDirty();
            drawTemplate();
            document.getElementById('new-condition-name')?.focus();
          } }, 'Delete'))];
      }), { empty: 'No conditions.' });
    }

    /** Renames a condition to what `input` holds, and with it the conditional values that use
     * it; an empty name or one another condition has puts the old one back. */
    function rename(condition, input) {
      const old = condition.name;
      const name = input.value.trim();
      if (name === old) return;
      const problem = conditionNameProblem(name);
      if (problem) {
        input.value = old;
        replace(conditionsNote, errorNote(problem));
        return;
      }
      replace(conditionsNote);
      condition.name = name;
      for (const parameter of allParameters(working)) {
        const values = parameter.conditionalValues;
        if (values && Object.hasOwn(values, old)) {
          parameter.conditionalValues = Object.fromEntries(Object.entries(values).map(([key, value]) => [key === old ? name : key, value]));
        }
      }
      markDirty();
      drawTemplate();
      focusCondition(name, 'name');
    }

    /** Why `name` cannot name a new or renamed condition; `null` when it can. */
    function conditionNameProblem(name) {
      if (!name) return 'A condition needs a name.';
      return working.conditions.some((condition) => condition.name === name) ? `A condition named '${name}' exists already.` : null;
    }

    /** Removes a parameter's value for a condition, and its conditionalValues once empty. */
    function dropConditionalValue(parameter, condition) {
      const values = parameter.conditionalValues;
      if (!values) return;
      delete values[condition];
      if (Object.keys(values).length === 0) delete parameter.conditionalValues;
    }

    /** After a redraw, puts the focus back on a condition's name field or move button. */
    function focusCondition(name, control) {
      const selector = control === 'name' ? `input[data-condition-name="${CSS.escape(name)}"]`
        : `button[aria-label="${CSS.escape(`Move ${name} ${control}`)}"]`;
      const element = document.querySelector(selector);
      (element && !element.disabled ? element : document.querySelector(`input[data-condition-name="${CSS.escape(name)}"]`))?.focus();
    }

    function conditionForm() {
      const name = h('input', { id: 'new-condition-name', name: 'name', placeholder: 'name', required: true, size: 16 });
      const expression = h('input', { id: 'new-condition-expression', name: 'expression', class: 'expression', required: true,
        placeholder: "device.os == 'ios'" });
      const note = h('span', { 'aria-live': 'polite' });
      return h('form', { class: 'inline', onsubmit: (event) => {
        event.preventDefault();
        const key = name.value.trim();
        const problem = conditionNameProblem(key);
        if (problem) {
          replace(note, errorNote(problem));
          return;
        }
        working.conditions.push({ name: key, expression: expression.value.trim() });
        markDirty();
        drawTemplate();
        document.getElementById('new-condition-name')?.focus();
      } }, h('label', { for: 'new-condition-name' }, 'New condition'), name,
      h('label', { for: 'new-condition-expression' }, 'when'), expression, h('button', { type: 'submit' }, 'Add'), note);
    }

    async function publish() {
      const body = { ...working, version: description.value ? { description: description.value } : undefined };
      replace(publishBox, h('p', { class: 'hint' }, 'Publishing…'));
      try {
        const { body: published } = await call('PUT', templatePath, { body, headers: { 'If-Match': etag ?? '*' } });
        replace(publishBox, h('p', { class: 'ok' }, `Published version ${published.version?.versionNumber}.`));
        description.value = '';
        await load();
        await drawVersions();
      } catch (error) {
        if (error.status === 409 || error.status === 412) {
          const { body: newer } = await call('GET', templatePath);
          replace(publishBox, errorNote(`${error.message}: version ${newer.version?.versionNumber} was published meanwhile. Yours is on the left, the current one on the right; reload to start from it.`),
            diffTable('Yours (not published)', `Current, version ${newer.version?.versionNumber}`, diffLines(stableJSON(working), stableJSON(editable(newer)))),
            h('button', { type: 'button', onclick: async () => { await load(); replace(publishBox); } }, 'Reload the current version'));
        } else {
          replace(publishBox, errorNote(error));
        }
      }
    }

    async function drawVersions() {
      const { versions = [] } = await get(`${templatePath}:listVersions?pageSize=100`);
      const numbers = versions.map((version) => version.versionNumber);
      replace(versionsBox, table(['Version', 'Published', 'By', 'Origin', 'Type', 'Description', ''], versions.map((version) => {
        const note = h('span', { 'aria-live': 'polite' });
        const isCurrent = String(version.versionNumber) === String(current?.version?.versionNumber);
        return [String(version.versionNumber), time(version.updateTime), version.updateUser?.email ?? '', version.updateOrigin ?? '',
          version.updateType + (version.rollbackSource ? ` (from ${version.rollbackSource})` : ''), version.description ?? '',
          isCurrent ? h('span', { class: 'badge ok' }, 'current') : h('span', {}, h('button', { 'data-rollback': version.versionNumber, onclick: async () => {
            try {
              await call('POST', `${templatePath}:rollback`, { body: { versionNumber: String(version.versionNumber) } });
              await load();
              await drawVersions();
            } catch (error) { replace(note, errorNote(error)); }
          } }, 'Roll back to this'), note)];
      }), { empty: 'No versions yet.' }));
      drawDiffChooser(numbers);
    }

    function drawDiffChooser(numbers) {
      if (numbers.length < 2) { replace(diffBox, h('p', { class: 'empty' }, 'Publish twice to compare versions.')); return; }
      const left = h('select', { id: 'diff-left', name: 'left' }, numbers.map((number) => h('option', { value: number }, `version ${number}`)));
      const right = h('select', { id: 'diff-right', name: 'right' }, numbers.map((number) => h('option', { value: number }, `version ${number}`)));
      left.value = String(numbers[1]);
      right.value = String(numbers[0]);
      const result = h('div', { id: 'diff-result' });
      replace(diffBox, h('form', { class: 'inline', onsubmit: async (event) => {
        event.preventDefault();
        try {
          const [a, b] = await Promise.all([left.value, right.value].map((number) => get(`${templatePath}?versionNumber=${encodeURIComponent(number)}`)));
          replace(result, diffTable(`Version ${left.value}`, `Version ${right.value}`, diffLines(stableJSON(editable(a)), stableJSON(editable(b)))));
        } catch (error) { replace(result, errorNote(error)); }
      } }, h('label', { for: 'diff-left' }, 'Compare'), left, h('label', { for: 'diff-right' }, 'with'), right,
      h('button', { type: 'submit', id: 'diff-button' }, 'Compare')), result);
    }

    await load();
    await drawVersions();
    return {
      async refresh() {
        const answer = await call('GET', templatePath);
        if (answer.headers.get('etag') !== etag) {
          if (dirty) {
            replace(notice, h('p', { class: 'warn' }, 'A newer version was published. Publishing your changes will show both; ',
              h('button', { type: 'button', class: 'link', onclick: async () => { await load(); } }, 'discard yours and load it'), '.'));
          } else {
            await load(answer);
          }
        }
        await drawVersions();
      },
    };
  },
};
