// The finder behind linear-patterns.test.ts, on a small project of its own: each way a pattern can be written or
// built, beside the look-alikes that are not patterns (a division, a type, an `instanceof`), and a file the compiler
// was not given, which must stop it rather than be skipped.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRegularExpressions } from '../../support/find-regular-expressions.ts';

let root: string;

const SOURCE = `
export const half = (a: number, b: number, c: number) => a / b / c;
export const literal = /^a+$/i;
export function first(text: string) {
  return /b*c/g.exec(text) ?? (text.length / 2 > 1 ? text.split(/,\\s*/) : null);
}
export const constructed = new RegExp('^d{2}$', 'u');
export const called = RegExp(\`e+\`);
export const fromName = (name: string) => new RegExp(name);
export const templated = (n: number) => new RegExp(\`^f{1,\${n}}$\`, 'i');
export const global = (text: string) => globalThis.RegExp(text);
export const handedOn = RegExp;
export const compiled = (text: string) => text.match('h+i') ?? text.search('j?');
export const typed = (value: unknown): value is RegExp => value instanceof RegExp;
export const inTemplate = \`\${'x'.replace(/x/, 'y')}\`;
`;

const VIEW = `export const View = () => <input pattern="[0-9]+" data-test={/k$/.source} />;`;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'find-patterns-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, jsx: 'preserve', noEmit: true, lib: ['ES2023'] },
      include: ['src'],
    }),
  );
  writeFileSync(join(root, 'src', 'patterns.ts'), SOURCE);
  writeFileSync(join(root, 'src', 'view.tsx'), VIEW);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('findRegularExpressions', () => {
  it('finds every written and built pattern, and nothing that only looks like one', () => {
    const found = findRegularExpressions(root, 'src').map((pattern) =>
      pattern.kind === 'written'
        ? `${pattern.file}:${pattern.line} written /${pattern.source}/${pattern.flags}`
        : `${pattern.file}:${pattern.line} built ${pattern.code} ${JSON.stringify(pattern.template)} ${pattern.flags}`,
    );
    expect(found).toEqual([
      'src/patterns.ts:3 written /^a+$/i',
      'src/patterns.ts:5 written /b*c/g',
      'src/patterns.ts:5 written /,\\s*/',
      'src/patterns.ts:7 written /^d{2}$/u',
      'src/patterns.ts:8 written /e+/',
      'src/patterns.ts:9 built new RegExp(name) null ',
      `src/patterns.ts:10 built new RegExp(\`^f{1,\${n}}$\`, 'i') {"head":"^f{1,","spans":[{"expression":"n","text":"}$"}]} i`,
      'src/patterns.ts:11 built globalThis.RegExp(text) null ',
      'src/patterns.ts:12 built RegExp null null',
      'src/patterns.ts:13 written /h+i/',
      'src/patterns.ts:13 written /j?/',
      'src/patterns.ts:15 written /x/',
      'src/view.tsx:1 written /^(?:[0-9]+)$/u',
      'src/view.tsx:1 written /k$/',
    ]);
  });

  it('stops at a script file the compiler was not given', () => {
    writeFileSync(join(root, 'src', 'outside.mjs'), 'export const hidden = /(a+)+$/;');
    try {
      expect(() => findRegularExpressions(root, 'src')).toThrow(/src\/outside\.mjs is not in tsconfig\.json's program/);
    } finally {
      rmSync(join(root, 'src', 'outside.mjs'));
    }
  });
});
