/**
 * Every relative link in README.md, bench/README.md, fixtures/README.md,
 * test/children/README.md and docs/*.md points at a file that exists, and a `#fragment` into a
 * Markdown file at one of its headings (GitHub's heading ids).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..');
const PAGES = [
  'README.md',
  'bench/README.md',
  'fixtures/README.md',
  'test/children/README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's id of a heading: lower case, punctuation dropped, spaces as `-`. */
function headingIds(file: string): Set<string> {
  const ids = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^#{1,6}\s+(.*)$/.exec(line);
    if (match !== null)
      ids.add(
        (match[1] as string)
          .trim()
          .toLowerCase()
          .replace(/[^\p{L}\p{N}_\- ]/gu, '')
          .replace(/ /g, '-'),
      );
  }
  return ids;
}

/** The broken relative links of one page, as `page: link (why)`. */
function brokenLinks(page: string): string[] {
  const text = readFileSync(join(REPO, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  const broken: string[] = [];
  for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (link === undefined || /^[a-z]+:/i.test(link)) continue;
    const [path = '', fragment] = link.split('#');
    const target = path === '' ? join(REPO, page) : normalize(join(REPO, dirname(page), path));
    if (!existsSync(target)) broken.push(`${page}: ${link} (no such file)`);
    else if (fragment !== undefined && target.endsWith('.md') && !headingIds(target).has(fragment)) broken.push(`${page}: ${link} (no such heading)`);
  }
  return broken;
}

describe('documentation links', () => {
  it('finds the pages', () => {
    expect(PAGES).toEqual(
      expect.arrayContaining(['README.md', 'bench/README.md', 'docs/OPERATIONS.md', 'docs/CLIENTS.md', 'docs/TESTING.md', 'docs/DEPLOYMENT.md']),
    );
  });

  it.each(PAGES)('%s: every relative link resolves', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });
});
