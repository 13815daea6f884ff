/**
 * The console's Static pages page: the /content API in a browser. Every
 * page, drafts marked, listed per language (`?published=all`, an
 * employee's read); one page and language at a time in an editor beside a
 * live preview of what GET will answer, its other languages side by side.
 *
 * Saving and deleting send the ETag the editor holds as If-Match (the one
 * GET served, published or not, or the one the last save answered), so a
 * change someone made meanwhile is refused by the API with 412 and nothing
 * is written. A new page has no tag: it is looked up again before saving,
 * and if someone created it meanwhile nothing is written either.
 */
import { byId, cell } from './dom';
import {
  type Answer,
  describeFailure,
  FieldErrors,
  once,
  refused,
  send,
  showChanged,
} from './form';

/** A page as GET /content/static-pages/{slug} answers it (docs/static-pages.md), fields in its order. */
interface StaticPage {
  content: string;
  accounting: Record<string, unknown>;
  title: string;
  metaTitle: string;
  metaDescription: string;
  language: string;
  category: string;
  slug: string;
  group: string;
  seoMetaData: Record<string, unknown>;
}
/** One entry of GET /content/static-pages/?published=all. */
interface StaticPageSummary {
  id: number;
  slug: string;
  locale: string;
  group: string;
  published: boolean;
}

/** What the editor opened: the page as GET answered it (null when there is none), its ETag and state. */
interface Opened {
  slug: string;
  language: string;
  page: StaticPage | null;
  etag: string | null;
  published: boolean;
}

let opened: Opened | undefined;
let listed: StaticPageSummary[] = [];

const input = (id: string) => byId<HTMLInputElement>(id);
const text = (id: string) => byId<HTMLInputElement | HTMLTextAreaElement>(id).value;
const status = (line: string) => {
  byId('pages-status').textContent = line;
};
const editorStatus = (line: string) => {
  byId('page-editor-status').textContent = line;
};
const pagePath = (slug: string) => `/content/static-pages/${encodeURIComponent(slug)}`;

let errors: FieldErrors | undefined;
/** The fields by the name the API gives them in `invalidParams`. */
const fieldErrors = () =>
  (errors ??= new FieldErrors({
    slug: byId('page-open-slug'),
    language: byId('page-open-language'),
    title: byId('page-title'),
    content: byId('page-content'),
    metaTitle: byId('page-meta-title'),
    metaDescription: byId('page-meta-description'),
    category: byId('page-category'),
    group: byId('page-group'),
    seoMetaData: byId('page-seo'),
    accounting: byId('page-accounting'),
    published: byId('page-published'),
    // Not the API's: the language typed to start a translation.
    translation: byId('page-translate-language'),
  }));

/** An answer the editor cannot go on from; a 400 names the field it refused. */
class FailedAnswer extends Error {
  constructor(readonly answer: Answer) {
    super(describeFailure(answer));
  }
}

/** The page in exactly `language`, published or not, or nulls when there is none. */
async function readVariant(slug: string, language: string): Promise<Answer<StaticPage | null>> {
  const answer = await send<StaticPage>(
    `${pagePath(slug)}?language=${encodeURIComponent(language)}&published=all`,
  );
  if (answer.status === 200 && answer.body?.language?.toLowerCase() === language.toLowerCase())
    return answer;
  if (answer.status === 200 || answer.status === 404)
    return { status: 404, etag: null, location: null, body: null };
  throw new FailedAnswer(answer);
}

function fillList(): void {
  const language = byId<HTMLSelectElement>('pages-language');
  const chosen = language.value;
  const languages = [...new Set(listed.map((page) => page.locale))].sort();
  language.replaceChildren(new Option('every language', ''));
  for (const tag of languages) language.add(new Option(tag, tag, false, tag === chosen));
  const shown = listed.filter((page) => !language.value || page.locale === language.value);
  const body = byId<HTMLTableElement>('pages-table').tBodies[0]!;
  body.replaceChildren();
  for (const page of shown) {
    const row = body.insertRow();
    cell(row, page.slug);
    cell(row, page.locale);
    cell(row, page.group || '—');
    // A draft stands out in the list: only employees see it.
    const state = row.insertCell();
    if (page.published) state.textContent = 'Published';
    else state.append(Object.assign(document.createElement('strong'), { textContent: 'Draft' }));
    const edit = document.createElement('button');
    edit.type = 'button';
    edit.textContent = 'Edit';
    edit.setAttribute('aria-label', `Edit ${page.slug} (${page.locale})`);
    edit.addEventListener('click', () => startEditing(page.slug, page.locale));
    row.insertCell().append(edit);
  }
  if (shown.length === 0) cell(body.insertRow(), 'No page.');
  const drafts = shown.filter((page) => !page.published).length;
  status(
    `${shown.length} page${shown.length === 1 ? '' : 's'}${language.value ? ` in ${language.value}` : ''}, ${drafts} not published.`,
  );
}

async function loadList(): Promise<void> {
  const answer = await send<StaticPageSummary[]>('/content/static-pages/?published=all');
  if (answer.status !== 200) throw new Error(describeFailure(answer));
  listed = answer.body;
  fillList();
}

/** The JSON fields as objects, or a sentence beside the one that is not an object. */
function jsonField(name: 'seoMetaData' | 'accounting', id: string): Record<string, unknown> | null {
  const source = text(id).trim();
  if (!source) return {};
  try {
    const value: unknown = JSON.parse(source);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
    fieldErrors().set(name, ['Not a JSON object ({…}).']);
  } catch (error) {
    fieldErrors().set(name, [`Not JSON: ${(error as Error).message}`]);
  }
  return null;
}

/** What GET would answer once the form is saved and published, in the API's order of fields. */
function previewOf(): StaticPage {
  const json = (id: string) => {
    try {
      const value: unknown = JSON.parse(text(id).trim() || '{}');
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  };
  return {
    content: text('page-content'),
    accounting: json('page-accounting'),
    title: text('page-title'),
    metaTitle: text('page-meta-title'),
    metaDescription: text('page-meta-description'),
    language: opened?.language ?? '',
    category: text('page-category'),
    slug: opened?.slug ?? '',
    group: text('page-group'),
    seoMetaData: json('page-seo'),
  };
}

/** The preview, as text nodes only: the page's own text never becomes markup here. */
function drawPreview(): void {
  if (!opened) return;
  const page = previewOf();
  const published = input('page-published').checked;
  const path = `${pagePath(opened.slug)}?language=${opened.language}`;
  byId('page-preview-note').textContent = published
    ? `Once saved, GET ${path} answers:`
    : `Not published: once saved, GET ${path} answers 404 (or a published language). Published, it would answer:`;
  byId('preview-url').textContent = path;
  byId('preview-meta-title').textContent = page.metaTitle || page.title;
  byId('preview-meta-description').textContent = page.metaDescription;
  byId('preview-heading').textContent = page.title;
  byId('preview-content').textContent = page.content;
  byId('page-preview-json').textContent = JSON.stringify(page, null, 2);
}

function fillForm(page: StaticPage | null, published: boolean): void {
  const set = (id: string, value: string) => {
    byId<HTMLInputElement | HTMLTextAreaElement>(id).value = value;
  };
  const json = (value: Record<string, unknown> | undefined) =>
    value && Object.keys(value).length ? JSON.stringify(value, null, 2) : '';
  set('page-title', page?.title ?? '');
  set('page-content', page?.content ?? '');
  set('page-meta-title', page?.metaTitle ?? '');
  set('page-meta-description', page?.metaDescription ?? '');
  set('page-category', page?.category ?? '');
  set('page-group', page?.group ?? '');
  set('page-seo', json(page?.seoMetaData));
  set('page-accounting', json(page?.accounting));
  input('page-published').checked = published;
  byId('page-publish').textContent = published ? 'Unpublish' : 'Publish';
}

/** The slug's other languages, each in a column with its title and text, drafts marked. */
async function drawVariants(slug: string, language: string): Promise<void> {
  const target = byId('page-variants');
  const others = listed.filter((page) => page.slug === slug && page.locale !== language);
  const read = await Promise.all(others.map((page) => readVariant(slug, page.locale)));
  target.replaceChildren();
  read.forEach(({ body }, index) => {
    if (!body) return;
    const column = document.createElement('article');
    column.className = 'variant';
    column.lang = body.language;
    const heading = document.createElement('h5');
    const draft = others[index]!.published ? '' : ' (draft)';
    heading.textContent = `${body.language}: ${body.title}${draft}`;
    const content = document.createElement('p');
    content.className = 'preview-content';
    content.textContent = body.content;
    const open = document.createElement('button');
    open.type = 'button';
    open.lang = 'en';
    open.textContent = `Edit ${body.language}`;
    open.addEventListener('click', () => startEditing(slug, body.language));
    column.append(heading, content, open);
    target.append(column);
  });
  if (!target.childElementCount) {
    const none = document.createElement('p');
    none.textContent = 'No other language.';
    target.append(none);
  }
}

/**
 * Opens `slug` in `language` as GET serves it; with `keepForm`, a language
 * not published yet starts from the text in the editor (a translation).
 */
export async function openPage(slug: string, language: string, keepForm = false): Promise<void> {
  fieldErrors().clear();
  input('page-open-slug').value = slug;
  input('page-open-language').value = language;
  const answer = await readVariant(slug, language);
  // Its state as the list says (the page itself does not carry it).
  const published =
    answer.body !== null &&
    listed.some(
      (page) => page.slug === slug && page.locale === answer.body?.language && page.published,
    );
  opened = { slug, language, page: answer.body, etag: answer.etag, published };
  byId('page-editor').hidden = false;
  byId('page-editor-title').textContent = `${slug} (${language})`;
  byId('page-language-tag').textContent = language;
  if (!(keepForm && answer.body === null)) fillForm(answer.body, published);
  else {
    input('page-published').checked = false;
    byId('page-publish').textContent = 'Publish';
  }
  byId('page-conflict').hidden = true;
  byId('page-content').lang = language;
  byId('page-title').lang = language;
  editorStatus(
    answer.body
      ? `Opened the ${published ? 'published' : 'unpublished (draft)'} ${slug} in ${language}.`
      : `No ${slug} in ${language} yet: saving creates it.`,
  );
  drawPreview();
  await drawVariants(slug, language);
}

/** Opens a page the operator chose and puts the keyboard in its title; a failure said in the list's status. */
function startEditing(slug: string, language: string, keepForm = false): void {
  openPage(slug, language, keepForm)
    .then(() => byId('page-title').focus())
    .catch(reportTo(status, `Could not open ${slug} in ${language}`));
}

const showConflict = () => showChanged('page', editorStatus);

async function save(published: boolean): Promise<void> {
  const page = opened;
  if (!page) return;
  const errors = fieldErrors();
  errors.clear();
  const seoMetaData = jsonField('seoMetaData', 'page-seo');
  const accounting = jsonField('accounting', 'page-accounting');
  if (!seoMetaData || !accounting) {
    editorStatus('Not saved: see the fields marked.');
    return;
  }
  if (page.etag === null) {
    // A new page has no tag to send: the check is a read, not atomic (docs/console.md).
    const current = await readVariant(page.slug, page.language);
    if (current.etag !== null) return showConflict();
  }
  const answer = await send<StaticPage>(pagePath(page.slug), {
    method: 'PUT',
    ifMatch: page.etag,
    body: {
      language: page.language,
      title: text('page-title'),
      content: text('page-content'),
      metaTitle: text('page-meta-title'),
      metaDescription: text('page-meta-description'),
      category: text('page-category'),
      group: text('page-group'),
      seoMetaData,
      accounting,
      published,
    },
  });
  if (answer.status === 412) return showConflict();
  if (answer.status === 200 || answer.status === 201) {
    await loadList();
    await openPage(page.slug, answer.body.language);
    editorStatus(
      `${answer.status === 201 ? 'Created' : 'Saved'} ${page.slug} in ${answer.body.language}, ${published ? 'published' : 'not published'}.`,
    );
    return;
  }
  refused(answer, errors, editorStatus);
}

async function removeVariant(): Promise<void> {
  const page = opened;
  if (!page) return;
  const answer = await send(
    `${pagePath(page.slug)}?language=${encodeURIComponent(page.language)}`,
    { method: 'DELETE', ifMatch: page.etag },
  );
  if (answer.status === 412) return showConflict();
  if (answer.status !== 204) {
    editorStatus(`Not deleted (${describeFailure(answer)}).`);
    return;
  }
  opened = undefined;
  byId('page-editor').hidden = true;
  await loadList();
  status(`Deleted ${page.slug} in ${page.language}.`);
}

/** A failure said on `show`; a 400 about the slug or language beside its field as well. */
const reportTo = (show: (line: string) => void, what: string) => (error: unknown) => {
  if (error instanceof FailedAnswer && error.answer.status === 400)
    fieldErrors().show(error.answer.body);
  show(`${what}: ${error instanceof Error ? error.message : String(error)}`);
};

export function showPages(): Promise<void> {
  return loadList().catch(reportTo(status, 'Could not list the pages'));
}

export function wirePages(): void {
  byId('pages-language').addEventListener('change', fillList);
  byId('pages-refresh').addEventListener('click', () => void showPages());
  byId<HTMLFormElement>('page-open').addEventListener('submit', (event) => {
    event.preventDefault();
    const slug = text('page-open-slug').trim();
    const language = text('page-open-language').trim();
    fieldErrors().clear();
    // The page's address needs both; what makes either valid is the API's to say.
    if (!slug) fieldErrors().set('slug', ['Type the slug of the page to open or start.']);
    if (!language) fieldErrors().set('language', ['Type its language, such as es or en-GB.']);
    if (slug && language) startEditing(slug, language);
  });
  byId<HTMLFormElement>('page-form').addEventListener('input', drawPreview);
  byId<HTMLFormElement>('page-form').addEventListener('submit', (event) => {
    event.preventDefault();
    once(byId('page-form'), () => save(input('page-published').checked)).catch(
      reportTo(editorStatus, 'Not saved'),
    );
  });
  byId('page-publish').addEventListener('click', () => {
    const publish = !opened?.published;
    once(byId('page-form'), () => save(publish)).catch(reportTo(editorStatus, 'Not saved'));
  });
  byId<HTMLFormElement>('page-translate').addEventListener('submit', (event) => {
    event.preventDefault();
    const language = text('page-translate-language').trim();
    fieldErrors().clear();
    if (!language) fieldErrors().set('translation', ['Type the language to add, such as fr.']);
    else if (opened) startEditing(opened.slug, language, true);
  });
  byId('page-reload').addEventListener('click', () => {
    if (opened)
      openPage(opened.slug, opened.language).catch(reportTo(editorStatus, 'Could not reload'));
  });
  byId<HTMLFormElement>('page-delete').addEventListener('submit', (event) => {
    event.preventDefault();
    once(byId('page-delete'), removeVariant).catch(reportTo(editorStatus, 'Not deleted'));
  });
}
