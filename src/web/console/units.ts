/**
 * A property's units on its page: the list, a new unit, one unit edited at
 * a time (rentable, published, features as a JSON array) and deleted. Each
 * write is followed by `changed`, which reads the property again so that
 * its counters on the page move with it.
 */
import { call, checkField, field, h, onSubmit, readJson, reasonOf } from './form';
import { propertyPath, type Unit, type UnitList } from './listings-api';

const FEATURES_EXAMPLE =
  '[{"applicability": "unit", "category": "comfort", "name": "balcony", "value": "yes"}]';

export function unitsSection(propertyId: string, level: 'h3' | 'h4', changed: () => Promise<void>) {
  const unitsPath = `${propertyPath(propertyId)}/units`;
  const status = h('p', { role: 'status', class: 'form-status' });
  const table = h('table', { class: 'records units' }, h('caption', {}, 'Units of this property'));
  table
    .createTHead()
    .append(
      h(
        'tr',
        {},
        ...['Unit', 'Rentable', 'Published', 'Features', 'Actions'].map((name) =>
          h('th', { scope: 'col' }, name),
        ),
      ),
    );
  const body = table.createTBody();

  // One editor, for the unit chosen in the table.
  const rentable = checkField('Rentable', 'rentable');
  const published = checkField('Published', 'published');
  const features = h('textarea', { rows: '4', spellcheck: 'false', class: 'json' });
  const editStatus = h('p', { role: 'status', class: 'form-status' });
  const editTitle = h(level === 'h3' ? 'h4' : 'h5', { tabindex: '-1' }, 'Edit unit');
  const editor = h(
    'form',
    { class: 'record-form', 'aria-label': 'Edit the unit' },
    rentable.box,
    published.box,
    field('Features (a JSON array)', features, 'features'),
    h('button', { type: 'submit' }, 'Save the unit'),
    editStatus,
  );
  const editBox = h('section', { class: 'action', hidden: true }, editTitle, editor);
  let editing: Unit | undefined;

  function edit(unit: Unit, label: string) {
    editing = unit;
    editTitle.textContent = `Edit ${label}`;
    rentable.control.checked = unit.rentable;
    published.control.checked = unit.published;
    features.value = JSON.stringify(unit.features, null, 2);
    editStatus.replaceChildren();
    editBox.hidden = false;
    editTitle.focus();
  }

  onSubmit(editor, editStatus, async () => {
    const unit = editing;
    if (!unit) return 'No unit chosen.';
    const list = readJson(features, true);
    await call('PATCH', `${unitsPath}/${encodeURIComponent(unit.id)}`, {
      body: {
        rentable: rentable.control.checked,
        published: published.control.checked,
        features: list,
      },
    });
    await Promise.all([changed(), load()]);
    return 'Unit saved.';
  });

  // A new unit.
  const newRentable = checkField('Rentable', 'rentable');
  newRentable.control.checked = true;
  const newFeatures = h('textarea', { rows: '3', spellcheck: 'false', class: 'json' });
  newFeatures.value = '[]';
  const addStatus = h('p', { role: 'status', class: 'form-status' });
  const adder = h(
    'form',
    { class: 'record-form', 'aria-label': 'Add a unit' },
    newRentable.box,
    field(`Features (a JSON array, e.g. ${FEATURES_EXAMPLE})`, newFeatures, 'features'),
    h('button', { type: 'submit' }, 'Add a unit'),
    addStatus,
  );
  onSubmit(adder, addStatus, async () => {
    const list = readJson(newFeatures, true);
    await call('POST', unitsPath, {
      body: { rentable: newRentable.control.checked, features: list },
    });
    newFeatures.value = '[]';
    await Promise.all([changed(), load()]);
    return 'Unit added.';
  });

  async function remove(unit: Unit, label: string, button: HTMLButtonElement) {
    button.disabled = true;
    try {
      await call('DELETE', `${unitsPath}/${encodeURIComponent(unit.id)}`);
      if (editing?.id === unit.id) editBox.hidden = true;
      await Promise.all([changed(), load()]);
      status.replaceChildren(`${label} deleted.`);
    } catch (error) {
      button.disabled = false;
      status.replaceChildren(`${label} was not deleted: ${reasonOf(error)}`);
    }
  }

  async function load(): Promise<void> {
    const { data } = await call<UnitList>('GET', `${unitsPath}?itemsPerPage=100`);
    const units = data._embedded['svc:units'];
    body.replaceChildren();
    units.forEach((unit, index) => {
      const label = `Unit ${index + 1}`;
      const row = body.insertRow();
      const cell = (name: string, content: Node | string) => {
        const td = row.insertCell();
        td.dataset.label = name;
        td.append(content);
      };
      cell('Unit', h('span', { title: unit.id }, `${label} (${unit.id.slice(-6)})`));
      cell('Rentable', unit.rentable ? 'yes' : 'no');
      cell('Published', unit.published ? 'yes' : 'no');
      cell(
        'Features',
        unit.features.map((f) => `${f.category}/${f.name}: ${f.value}`).join('; ') || 'none',
      );
      const editButton = h('button', { type: 'button', 'aria-label': `Edit ${label}` }, 'Edit');
      editButton.addEventListener('click', () => edit(unit, label));
      const deleteButton = h(
        'button',
        { type: 'button', 'aria-label': `Delete ${label}` },
        'Delete',
      );
      deleteButton.addEventListener('click', () => void remove(unit, label, deleteButton));
      cell('Actions', h('span', { class: 'actions' }, editButton, deleteButton));
    });
    if (units.length === 0) {
      const td = body.insertRow().insertCell();
      td.colSpan = 5;
      td.textContent = 'No unit.';
    }
  }

  const element = h(
    'section',
    { class: 'units-section' },
    h(level, {}, 'Units'),
    status,
    table,
    editBox,
    adder,
  );
  return {
    element,
    load: () =>
      load().catch((error: unknown) => {
        status.replaceChildren(`Could not list the units: ${reasonOf(error)}`);
      }),
  };
}
