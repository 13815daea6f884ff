/**
 * The API reference at /docs, rendered in the browser from /docs/json by
 * this script alone (served from this origin, no inline code, nothing
 * fetched elsewhere): the operations by tag, each with who may call it, its
 * parameters, request body and example, and every answer it can give.
 * Text goes in with textContent only: nothing in the document is HTML.
 */
type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Json[];
  requestBody?: { content?: Record<string, { schema?: Json; example?: unknown }> };
  responses?: Record<string, Json>;
}
interface Document {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
  components?: Record<string, Record<string, Json>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** A `#/components/<kind>/<name>` reference resolved. */
function resolve(doc: Document, node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  const [, , kind, name] = ref.split('/');
  return doc.components?.[kind ?? '']?.[name ?? ''] ?? node;
}

function typeText(schema: Json | undefined): string {
  if (!schema) return '';
  if (Array.isArray(schema.enum)) return schema.enum.map(String).join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : String(schema.type ?? 'any');
  if (type === 'array') return `${typeText(schema.items as Json | undefined)}[]`;
  const bounds = [
    schema.minimum !== undefined ? `≥ ${schema.minimum}` : '',
    schema.maximum !== undefined ? `≤ ${schema.maximum}` : '',
    schema.format ? String(schema.format) : '',
  ].filter(Boolean);
  return bounds.length ? `${type} (${bounds.join(', ')})` : type;
}

function table(head: string[], rows: string[][]): HTMLTableElement {
  const node = element('table');
  const header = node.createTHead().insertRow();
  for (const cell of head) header.append(element('th', cell));
  const body = node.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    for (const cell of row) line.insertCell().textContent = cell;
  }
  return node;
}

function callers(security: Operation['security']): string {
  if (!security || security.length === 0) return 'Anyone (no credential).';
  const anonymous = security.some((requirement) => Object.keys(requirement).length === 0);
  const roles = new Set(security.flatMap((requirement) => Object.values(requirement).flat()));
  const who = roles.size ? `${[...roles].join(', ')}s` : 'any signed-in caller';
  const how = 'a bearer token or the session cookie';
  return anonymous ? `Anyone; ${how} is checked when sent.` : `${who}, with ${how}.`;
}

function operationNode(doc: Document, method: string, path: string, op: Operation) {
  const node = element('details', undefined, 'operation');
  node.dataset.search = `${path} ${op.summary ?? ''} ${op.operationId ?? ''}`.toLowerCase();
  const summary = element('summary');
  summary.append(
    element('span', method, `method ${method}`),
    element('span', path, 'path'),
    element('span', op.summary ?? '', 'muted'),
  );
  const body = element('div', undefined, 'body');
  body.append(
    element('p', `operationId: ${op.operationId ?? '—'} · ${callers(op.security)}`, 'muted'),
  );
  if (op.description) body.append(element('p', op.description));
  const parameters = (op.parameters ?? []).map((p) => resolve(doc, p));
  if (parameters.length) {
    body.append(element('h3', 'Parameters'));
    const rows = parameters.map((p) => [
      String(p.name),
      String(p.in),
      typeText(p.schema as Json | undefined),
      p.required ? 'yes' : '',
      String(p.description ?? (p.schema as Json | undefined)?.description ?? ''),
    ]);
    body.append(table(['name', 'in', 'type', 'required', 'description'], rows));
  }
  for (const [media, content] of Object.entries(op.requestBody?.content ?? {})) {
    body.append(element('h3', `Request body (${media})`));
    if (content.example !== undefined)
      body.append(element('pre', JSON.stringify(content.example, null, 2)));
  }
  body.append(element('h3', 'Answers'));
  const answers = element('table');
  const head = answers.createTHead().insertRow();
  for (const cell of ['status', 'media type', 'headers', 'meaning'])
    head.append(element('th', cell));
  const rows = answers.createTBody();
  for (const [status, declared] of Object.entries(op.responses ?? {})) {
    const response = resolve(doc, declared);
    const row = rows.insertRow();
    const cell = row.insertCell();
    cell.append(element('span', status, `status ${Number(status) < 400 ? 'ok' : 'error'}`));
    row.insertCell().textContent =
      Object.keys((response.content as Json) ?? {}).join(', ') || 'no body';
    row.insertCell().textContent = Object.keys((response.headers as Json) ?? {}).join(', ');
    row.insertCell().textContent = String(response.description ?? '');
  }
  body.append(answers);
  node.append(summary, body);
  return node;
}

function render(doc: Document) {
  document.getElementById('title')!.textContent = doc.info?.title ?? 'API reference';
  document.getElementById('version')!.textContent = `Version ${doc.info?.version ?? ''}`;
  document.getElementById('description')!.textContent = doc.info?.description ?? '';
  const sections = new Map<string, HTMLElement[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      sections.set(tag, [...(sections.get(tag) ?? []), operationNode(doc, method, path, op)]);
    }
  }
  const main = document.getElementById('operations')!;
  const nav = document.getElementById('tags')!;
  main.replaceChildren();
  for (const [index, [tag, nodes]] of [...sections.entries()].entries()) {
    const id = `tag-${index}`;
    const heading = element('h2', tag);
    heading.id = id;
    main.append(heading, ...nodes);
    const link = element('a', `${tag} (${nodes.length})`);
    link.href = `#${id}`;
    nav.append(link);
  }
  const filter = document.getElementById('filter') as HTMLInputElement;
  filter.addEventListener('input', () => {
    const wanted = filter.value.trim().toLowerCase();
    for (const node of main.querySelectorAll<HTMLElement>('details.operation')) {
      node.classList.toggle('hidden', wanted !== '' && !node.dataset.search?.includes(wanted));
    }
  });
}

fetch('/docs/json', { headers: { accept: 'application/json' } })
  .then((response) => {
    if (!response.ok) throw new Error(`/docs/json answered ${response.status}`);
    return response.json() as Promise<Document>;
  })
  .then(render)
  .catch((error: unknown) => {
    document.getElementById('loading')!.textContent = `Could not load /docs/json: ${String(error)}`;
  });
