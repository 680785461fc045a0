// The relay's folders form layers, and an import only ever points down (or sideways, within a folder): a store never
// reaches for the HTTP layer's errors, a helper never for the routes. The order, lowest first:
//
//   log.ts         the logger every part writes to
//   metrics        counters and gauges, no knowledge of what is counted
//   shared-state   the Redis connection and the storage errors every store raises
//   protection     quotas (in memory, in Redis)
//   upstream       the service's client and its contract
//   http           Hono plumbing: coded API errors, how upstream and storage failures become answers, middleware
//   logo           the logo's fetcher and its URL on the relay
//   configuration  a practice's configuration, as the relay keeps it and as browsers receive it
//   conversations  handles, idempotency, deliver-once, the read policy, and their stores
//   live           the live streams and the event bus
//   health         readiness and lifecycle
//   frame          the frame page
//   routes         the /v1 API and the pages
//   the composition root (app.ts with app-middleware.ts and app-live.ts, serve.ts, stores.ts, and
//   settings.ts with settings/ and secret-strength.ts, which read the environment it is composed from): picks one kind
//   of every part and wires them
//
// Besides, the relay imports nothing from src/ but src/shared (ARCHITECTURE.md, "Parts and the direction of
// dependencies"). A new folder gets a place in LAYERS below, or this test fails.
//
// Within a folder the layers say nothing, so the last test looks at files: no source file anywhere in src/ reaches
// itself through its imports, type-only ones included. A loop means no file of it can be read, tested or changed
// without all the others; the way out is to move what two files share into the one the others build on.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
const RELAY = join(SRC, 'relay');

/** Lowest first; a name ending in .ts is a file at the relay's root, any other a folder. */
const LAYERS: string[][] = [
  ['log.ts'],
  ['metrics'],
  ['shared-state'],
  ['protection'],
  ['upstream'],
  ['http'],
  ['logo'],
  ['configuration'],
  ['conversations'],
  ['live'],
  ['health'],
  ['frame'],
  ['routes'],
  [
    'app.ts',
    'app-middleware.ts',
    'app-live.ts',
    'serve.ts',
    'stores.ts',
    'settings.ts',
    'settings',
    'secret-strength.ts',
  ],
];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every module a file names: static imports and re-exports (type-only ones too), side-effect and dynamic imports. */
function importedSpecifiers(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

/** The part of the relay a file belongs to: its top folder, or its own name at the root. */
function partOf(file: string): string {
  return relative(RELAY, file).split(sep)[0]!;
}

interface Edge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

function relayEdges(): { edges: Edge[]; outside: string[] } {
  const edges: Edge[] = [];
  const outside: string[] = [];
  for (const file of sourceFiles(RELAY)) {
    for (const specifier of importedSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      const shown = `${relative(SRC, file)} → ${specifier}`;
      if (!target.startsWith(RELAY + sep)) {
        if (!target.startsWith(join(SRC, 'shared') + sep)) outside.push(shown);
        continue;
      }
      const [from, to] = [partOf(file), partOf(target)];
      if (from !== to) edges.push({ from, to, file: relative(SRC, file), specifier });
    }
  }
  return { edges, outside };
}

const levelOf = (part: string) => LAYERS.findIndex((layer) => layer.includes(part));

/** The parts that import one another, directly or around a loop: each cycle once, as its members. */
function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) next.set(from, (next.get(from) ?? new Set()).add(to));
  const reaches = (start: string, goal: string) => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const part = stack.pop()!;
      for (const following of next.get(part) ?? []) {
        if (following === goal) return true;
        if (!seen.has(following)) {
          seen.add(following);
          stack.push(following);
        }
      }
    }
    return false;
  };
  const parts = [...next.keys()].sort();
  const found = new Map<string, string[]>();
  for (const part of parts) {
    if (!reaches(part, part)) continue;
    const members = parts.filter((other) => other === part || (reaches(part, other) && reaches(other, part)));
    found.set(members.join(','), members);
  }
  return [...found.values()];
}

/** Every source file of src/ with the source files it imports (relative specifiers; packages are not ours). */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const targets = importedSpecifiers(readFileSync(file, 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => relative(SRC, resolve(dirname(file), specifier)));
    graph.set(relative(SRC, file), [...new Set(targets)]);
  }
  return graph;
}

/** The files that reach one another through their imports (Tarjan's strongly connected components), each group
 * shown as one loop through it: `a.ts → b.ts → a.ts`. */
function importLoops(graph: Map<string, string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = ''; member !== file; ) {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    }
    if (group.length > 1 || graph.get(file)?.includes(file)) groups.push(group.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return groups.map((group) => loopThrough(group, graph).join(' → '));
}

/** The shortest way from the group's first file back to itself, staying inside the group. */
function loopThrough(group: string[], graph: Map<string, string[]>): string[] {
  const start = group[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const file = queue[head]!;
    for (const target of graph.get(file) ?? []) {
      if (!group.includes(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      if (target === start) {
        const path = [start];
        for (let at = cameFrom.get(start)!; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        return [start, ...path];
      }
      queue.push(target);
    }
  }
  return group;
}

it('finds imports the ways a file can write them', () => {
  const source = [
    "import { a } from './a.ts';",
    "import type {\n  B,\n  C,\n} from '../b/b.ts';",
    "export { d } from './d.ts';",
    "import './side-effect.ts';",
    "const e = await import('../e/e.ts');",
    "// A comment saying what is imported from './not-an-import.ts' is not an import.",
  ].join('\n');
  expect(importedSpecifiers(source).sort()).toEqual(['../b/b.ts', '../e/e.ts', './a.ts', './d.ts', './side-effect.ts']);
});

it('every file of the relay belongs to a layer', () => {
  const parts = new Set(sourceFiles(RELAY).map(partOf));
  expect([...parts].filter((part) => levelOf(part) === -1)).toEqual([]);
});

it('the relay imports nothing from src/ but src/shared', () => {
  expect(relayEdges().outside).toEqual([]);
});

it('no part of the relay imports a part above it', () => {
  const upward = relayEdges()
    .edges.filter(({ from, to }) => levelOf(to) > levelOf(from))
    .map(({ from, to, file, specifier }) => `${from} → ${to} (${file} imports ${specifier})`);
  expect(upward).toEqual([]);
});

it('no parts of the relay import one another around a loop', () => {
  expect(cycles(relayEdges().edges)).toEqual([]);
});

it('finds a loop of files, and shows it as the way around', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts', 'd.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', []],
    ['e.ts', ['e.ts']],
  ]);
  expect(importLoops(graph)).toEqual(['a.ts → b.ts → c.ts → a.ts', 'e.ts → e.ts']);
});

it('no source file in src/ imports itself around a loop', () => {
  const graph = fileGraph();
  expect(graph.size).toBeGreaterThan(200);
  expect(importLoops(graph)).toEqual([]);
});
