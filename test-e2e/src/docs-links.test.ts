import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README and the docs stand alone in a fresh clone: every relative link resolves to a
 * file of the repository, and none leads outside it (the shared specification folder of the
 * workspace this was written in does not exist for a reader).
 */
const root = resolve(import.meta.dirname, '../..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...['packages', 'services']
    .flatMap((folder) => readdirSync(join(root, folder)).map((name) => `${folder}/${name}/README.md`))
    .filter((path) => existsSync(join(root, path))),
];

function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'));
}

describe('documentation links', () => {
  it.each(documents)('%s links only to files of the repository', (document) => {
    const text = readFileSync(join(root, document), 'utf8');
    expect(text).not.toMatch(/\.\.\/shared|shared\/spec/);
    const broken = relativeLinks(text).filter((target) => {
      const path = resolve(dirname(join(root, document)), target.split('#')[0]!);
      return relative(root, path).startsWith('..') || !existsSync(path);
    });
    expect(broken).toEqual([]);
  });

  it('the README says what it is, how to start it and how to take a first payment, first', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings.slice(0, 2)).toEqual(['Start it', 'Take a first payment']);
    expect(readme).toContain('pnpm install && pnpm start');
    expect(readme).toMatch(/pnpm -s mmp project create --name Shop --json/);
  });
});
