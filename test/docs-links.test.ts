import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const root = join(import.meta.dir, '..');

const files = [
  'README.md',
  'SECURITY.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced blocks, where a `[x](y)` is a link. */
function prose(text: string): string {
  return text.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
}

/** GitHub's anchor of each heading: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

describe('links between the documents', () => {
  const links = files.flatMap((file) =>
    [...prose(readFileSync(join(root, file), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
      .map(([, target]) => target!)
      .filter((target) => !/^[a-z]+:/.test(target))
      .map((target) => ({ file, target })),
  );

  test('finds the links (README to docs, docs to each other, anchors)', () => {
    expect(links.some((link) => link.file === 'README.md' && link.target.startsWith('docs/'))).toBe(
      true,
    );
    expect(links.some((link) => link.target.includes('#'))).toBe(true);
  });

  test('every relative link names a file that exists, and a heading of it', () => {
    const broken = links
      .filter(({ file, target }) => {
        const [path, anchor] = target.split('#');
        const resolved = path === '' ? file : normalize(join(dirname(file), path!));
        if (!existsSync(join(root, resolved))) return true;
        if (anchor === undefined || !resolved.endsWith('.md')) return false;
        return !anchorsOf(readFileSync(join(root, resolved), 'utf8')).has(anchor);
      })
      .map(({ file, target }) => `${file}: ${target}`);
    expect(broken).toEqual([]);
  });
});
