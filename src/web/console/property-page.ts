/**
 * One property: every field, its counters, neighbourhood, additional data
 * and units, and a form per action of the API (location, information,
 * owner, neighbourhood, convert, archive, unarchive). Each write sends the
 * `ETag` of the last read in `If-Match`: a property changed by someone else
 * meanwhile is refused (412) and the form says so, keeping what was typed,
 * with a button that reads the property again.
 */
import {
  ApiProblem,
  call,
  checkField,
  field,
  h,
  input,
  numberOrText,
  onSubmit,
  readJson,
  reasonOf,
  select,
} from './form';
import {
  type AdditionalData,
  type MultiListingUnit,
  type NeighbourhoodList,
  type PropertiesOptions,
  type Property,
  propertyPath,
  type Vocabulary,
} from './listings-api';
import { unitsSection } from './units';

/** `listHash`: where Back to the list goes (the list as it was filtered). */
type PageOptions = PropertiesOptions & { words: Vocabulary; listHash: string };
type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const time = (iso: string) => `${new Date(iso).toISOString().replace('T', ' ').slice(0, 19)} UTC`;

function facts(entries: [string, string][]): HTMLDListElement {
  return h(
    'dl',
    { class: 'facts' },
    ...entries.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

/** A titled form of one action, with its own status line. */
function action(title: string, level: 'h3' | 'h4', ...content: (Node | string)[]) {
  const status = h('p', { role: 'status', class: 'form-status' });
  const form = h('form', { class: 'record-form', 'aria-label': title }, ...content, status);
  return { form, status, box: h('section', { class: 'action' }, h(level, {}, title), form) };
}

export async function propertyPage(
  root: HTMLElement,
  id: string,
  options: PageOptions,
): Promise<void> {
  const employee = options.customerId === undefined;
  const sub = options.level === 'h3' ? 'h4' : 'h3';
  let property: Property;
  let etag: string | null = null;

  const read = async () => {
    const answer = await call<Property>('GET', propertyPath(id));
    property = answer.data;
    etag = answer.etag;
  };
  try {
    await read();
  } catch (error) {
    root.replaceChildren(
      h('p', {}, h('a', { href: options.listHash }, 'Back to the list')),
      h(
        'p',
        { role: 'alert' },
        error instanceof ApiProblem && error.status === 404
          ? `There is no property ${id} you may see.`
          : `Could not read the property: ${reasonOf(error)}`,
      ),
    );
    return;
  }

  const heading = h(options.level ?? 'h2', { tabindex: '-1' });
  const factsBox = h('div');
  const counters = h('div', { 'aria-live': 'polite' });
  const v = (form: HTMLFormElement, name: string) => form.elements.namedItem(name) as Control;

  /** Every form's status cleared and its fields filled from the property as last read. */
  const fillers: (() => void)[] = [];
  const statuses: HTMLElement[] = [];
  async function reload(): Promise<void> {
    await read();
    fill();
    for (const status of statuses) status.replaceChildren();
  }
  const reloadAndSay = () => {
    reload()
      .then(() => heading.focus())
      .catch((error: unknown) => {
        statuses[0]?.replaceChildren(`Could not read the property again: ${reasonOf(error)}`);
      });
  };

  /** A write with If-Match, then the property read again; answers the sentence to show. */
  const write = async (method: string, path: string, body: unknown, done: string) => {
    await call(method, `${propertyPath(id)}${path}`, { body, ifMatch: etag });
    await reload();
    return done;
  };

  function withAction(
    built: ReturnType<typeof action>,
    fillForm: () => void,
    save: () => Promise<string>,
  ) {
    statuses.push(built.status);
    fillers.push(fillForm);
    onSubmit(built.form, built.status, save, reloadAndSay);
    return built.box;
  }

  // Location.
  const locationAction = action(
    'Location',
    sub,
    field('Address line 1', input(), 'addressLine1'),
    field('Address line 2 (optional)', input(), 'addressLine2'),
    field('City name', input(), 'city'),
    field('City id', select(options.words.cityIds), 'cityId'),
    field('Postal code', input(), 'postalCode'),
    field('Latitude', input({ inputmode: 'decimal' }), 'latitude'),
    field('Longitude', input({ inputmode: 'decimal' }), 'longitude'),
    h('button', { type: 'submit' }, 'Save the location'),
  );

  const locationBox = withAction(
    locationAction,
    () => {
      const { form } = locationAction;
      const where = property.location;
      for (const name of ['addressLine1', 'addressLine2', 'city', 'cityId', 'postalCode'] as const)
        v(form, name).value = where[name] ?? '';
      v(form, 'latitude').value = String(where.latitude);
      v(form, 'longitude').value = String(where.longitude);
    },
    () => {
      const { form } = locationAction;
      const text = (name: string) => v(form, name).value.trim();
      return write(
        'PUT',
        '/location',
        {
          addressLine1: text('addressLine1'),
          ...(text('addressLine2') ? { addressLine2: text('addressLine2') } : {}),
          city: text('city'),
          cityId: text('cityId'),
          postalCode: text('postalCode'),
          latitude: numberOrText(text('latitude')),
          longitude: numberOrText(text('longitude')),
        },
        'Location saved.',
      );
    },
  );

  // Information.
  const { box: visitableBox, control: visitable } = checkField('Visitable', 'isVisitable');
  const informationAction = action(
    'Information',
    sub,
    visitableBox,
    field('Year of construction (optional)', input({ inputmode: 'numeric' }), 'yearOfConstruction'),
    h('button', { type: 'submit' }, 'Save the information'),
  );
  const informationBox = withAction(
    informationAction,
    () => {
      visitable.checked = property.isVisitable;
      v(informationAction.form, 'yearOfConstruction').value =
        property.yearOfConstruction === undefined ? '' : String(property.yearOfConstruction);
    },
    () => {
      const year = v(informationAction.form, 'yearOfConstruction').value.trim();
      return write(
        'PUT',
        '/information',
        {
          isVisitable: visitable.checked,
          ...(year ? { yearOfConstruction: numberOrText(year) } : {}),
        },
        'Information saved.',
      );
    },
  );

  // Owner: employees only (a customer's answer would be 403).
  const ownerAction = action(
    'Owner',
    sub,
    field('Owner id', input(), 'ownerId'),
    h('button', { type: 'submit' }, 'Save the owner'),
  );
  const ownerBox = employee
    ? withAction(
        ownerAction,
        () => {
          v(ownerAction.form, 'ownerId').value = property.ownerId;
        },
        () =>
          write(
            'PUT',
            '/owner',
            { ownerId: v(ownerAction.form, 'ownerId').value.trim() },
            'Owner saved.',
          ),
      )
    : undefined;

  // Neighbourhood: those of the property's city.
  const neighbourhoods = h('select');
  const neighbourhoodNote = h('p', { class: 'note' });
  const neighbourhoodAction = action(
    'Neighbourhood',
    sub,
    field('Neighbourhood', neighbourhoods, 'neighbourhoodId'),
    neighbourhoodNote,
    h('button', { type: 'submit' }, 'Save the neighbourhood'),
  );
  const neighbourhoodBox = withAction(
    neighbourhoodAction,
    () => {
      const { cityId, neighbourhoodId } = property.location;
      call<NeighbourhoodList>(
        'GET',
        `/listings/neighbourhoods?cityId=${encodeURIComponent(cityId)}`,
      )
        .then(({ data }) => {
          neighbourhoods.replaceChildren(
            h('option', { value: '' }, 'none'),
            ...data.neighbourhoods.map((n) => h('option', { value: n.id }, `${n.name} (${n.id})`)),
          );
          neighbourhoods.value = neighbourhoodId ?? '';
          neighbourhoodNote.textContent =
            data.neighbourhoods.length === 0 ? `No neighbourhood is defined in ${cityId} yet.` : '';
        })
        .catch((error: unknown) => {
          neighbourhoodNote.textContent = `Could not list the neighbourhoods: ${reasonOf(error)}`;
        });
    },
    () =>
      write(
        'PUT',
        '/neighbourhood',
        { neighbourhoodId: neighbourhoods.value },
        'Neighbourhood saved.',
      ),
  );

  // Convert.
  const convertAction = action(
    'Convert to another type',
    sub,
    field('Type', select(options.words.types), 'type'),
    h('button', { type: 'submit' }, 'Convert'),
  );
  const convertBox = withAction(
    convertAction,
    () => {
      v(convertAction.form, 'type').value = property.type;
    },
    () => write('PUT', '/convert', { type: v(convertAction.form, 'type').value }, 'Converted.'),
  );

  // Archive (with its reasons) or unarchive, whichever applies.
  const archiveAction = action(
    'Archive',
    sub,
    field('Reason (optional)', input({ maxlength: '255' }), 'reasonToUnpublish'),
    field(
      'More about the reason (optional)',
      h('textarea', { rows: '2', maxlength: '2000' }),
      'reasonToUnpublishExtraInfo',
    ),
    h('button', { type: 'submit' }, 'Archive the property'),
  );
  const unarchiveAction = action(
    'Unarchive',
    sub,
    h('p', {}, 'The property is archived: its units stay unpublished after it comes back.'),
    h('button', { type: 'submit' }, 'Unarchive the property'),
  );
  const archiveBox = withAction(
    archiveAction,
    () => {
      archiveAction.box.hidden = property.archived;
      archiveAction.form.reset();
    },
    async () => {
      const reason = v(archiveAction.form, 'reasonToUnpublish').value.trim();
      const extra = v(archiveAction.form, 'reasonToUnpublishExtraInfo').value.trim();
      const body = {
        ...(reason ? { reasonToUnpublish: reason } : {}),
        ...(extra ? { reasonToUnpublishExtraInfo: extra } : {}),
      };
      // Said where the reader is now: the Unarchive form takes this one's place.
      const done = await write('DELETE', '', body, 'Archived.');
      unarchiveAction.status.replaceChildren(done);
      return done;
    },
  );
  const unarchiveBox = withAction(
    unarchiveAction,
    () => {
      unarchiveAction.box.hidden = !property.archived;
    },
    async () => {
      const done = await write('POST', '/unarchive', undefined, 'Unarchived.');
      archiveAction.status.replaceChildren(done);
      return done;
    },
  );

  // Additional data: a JSON object, checked here before it is sent.
  const dataText = h('textarea', { rows: '6', spellcheck: 'false', class: 'json' });
  const dataAction = action(
    'Additional data (a JSON object)',
    sub,
    field('Additional data', dataText, 'data'),
    h('button', { type: 'submit' }, 'Save the additional data'),
  );
  statuses.push(dataAction.status);
  const loadData = () =>
    call<AdditionalData>('GET', `${propertyPath(id)}/additional-data`)
      .then(({ data }) => {
        dataText.value = JSON.stringify(data.data, null, 2);
      })
      .catch((error: unknown) => {
        if (error instanceof ApiProblem && error.status === 404) dataText.value = '{}';
        else dataAction.status.replaceChildren(`Could not read it: ${reasonOf(error)}`);
      });
  onSubmit(dataAction.form, dataAction.status, async () => {
    const data = readJson(dataText);
    await call('PUT', `${propertyPath(id)}/additional-data`, { body: { data } });
    await reload();
    return 'Additional data saved.';
  });

  // The multi-listing counter: read by anyone who may see the property, set by employees.
  const counterAction = action(
    'Multi-listing counter',
    sub,
    field('Units counter (0 to 10000)', input({ inputmode: 'numeric' }), 'counter'),
    h('button', { type: 'submit' }, 'Save the counter'),
  );
  const counterPath = `/listings/multi-listing-units/${encodeURIComponent(id)}`;
  const counterInput = v(counterAction.form, 'counter');
  if (!employee) counterInput.setAttribute('readonly', '');
  counterAction.form.querySelector('button')!.hidden = !employee;
  statuses.push(counterAction.status);
  const loadCounter = () =>
    call<MultiListingUnit>('GET', counterPath)
      .then(({ data }) => {
        counterInput.value = String(data.unitsCounter);
      })
      .catch((error: unknown) => {
        counterAction.status.replaceChildren(`Could not read it: ${reasonOf(error)}`);
      });
  onSubmit(counterAction.form, counterAction.status, async () => {
    await call('PUT', counterPath, { body: { counter: numberOrText(counterInput.value) } });
    // The counter's write moves the property's ETag too: read both again.
    await Promise.all([reload(), loadCounter()]);
    return 'Counter saved.';
  });

  const units = unitsSection(id, sub, () => reload());

  function fill() {
    const where = property.location;
    heading.textContent = `Property: ${where.addressLine1}, ${where.city}`;
    factsBox.replaceChildren(
      facts([
        ['Id', property.id],
        ['Type', property.type],
        ['Owner', property.ownerId],
        ['Address', [where.addressLine1, where.addressLine2].filter(Boolean).join(', ')],
        ['City', `${where.city} (${where.cityId}), ${where.postalCode}, ${where.country}`],
        ['Coordinates', `${where.latitude}, ${where.longitude}`],
        ['Neighbourhood', where.neighbourhoodId ?? 'none'],
        ['Visitable', property.isVisitable ? 'yes' : 'no'],
        ['Year of construction', String(property.yearOfConstruction ?? '—')],
        ['Verified', property.verified ? 'yes' : 'no'],
        ['Source', property.source],
        ['Archived', property.archived ? 'yes' : 'no'],
        ['Created', time(property.createdAt)],
        ['Updated', time(property.updatedAt)],
      ]),
    );
    counters.replaceChildren(
      facts([
        ['Total units', String(property.totalUnits)],
        ['Rentable units', String(property.rentableUnits)],
        ['Published units', String(property.publishedUnits)],
        ['Published', property.published ? 'yes' : 'no'],
      ]),
    );
    counters.dataset.counters = `${property.totalUnits}/${property.rentableUnits}/${property.publishedUnits}`;
    for (const filler of fillers) filler();
  }

  fill();
  root.replaceChildren(
    h('p', {}, h('a', { href: options.listHash }, 'Back to the list')),
    heading,
    factsBox,
    h('section', { class: 'counters' }, h(sub, {}, 'Counters'), counters),
    counterAction.box,
    units.element,
    locationBox,
    informationBox,
    ...(ownerBox ? [ownerBox] : []),
    neighbourhoodBox,
    convertBox,
    archiveBox,
    unarchiveBox,
    dataAction.box,
  );
  heading.focus();
  await Promise.all([units.load(), loadData(), loadCounter()]);
}
