// The README is the front door and docs/ holds the rest: a link that leads nowhere, or a README that grows back into
// a manual, defeats both. Links are read as GitHub renders them: relative paths from the page's folder, anchors as
// GitHub writes heading ids.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const README_MAX_LINES = 260;

const pages = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
];

/** The page's text without fenced code blocks or inline code, where brackets and parentheses are not links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every link target in a page: Markdown links and images, and the `src`/`href` of inline HTML. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  return [
    ...[...text.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!),
    ...[...text.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((match) => match[1]!),
  ];
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingIds(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(readFileSync(page, 'utf8'))) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto: and the like leave the repository
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
    const where = `${relative(ROOT, page)} → ${target}`;
    if (!existsSync(file)) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (anchor === undefined || !file.endsWith('.md') || statSync(file).isDirectory()) continue;
    if (!headingIds(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${where}: no such heading`);
  }
  return broken;
}

describe('the README and docs/', () => {
  it('finds the pages and their links', () => {
    expect(pages.length).toBeGreaterThan(5);
    expect(linkTargets(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
  });

  it.each(pages.map((page) => [relative(ROOT, page), page]))('%s: every relative link resolves', (_name, page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it(`keeps the README a front door: under ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThan(README_MAX_LINES);
  });
});
