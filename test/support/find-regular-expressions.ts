// Every regular expression in a set of TypeScript sources, found in the compiler's syntax tree rather than by a
// pattern over the text: a regex literal is a token only the parser can tell from a division, and a pattern built at
// run time hides in a call. What cannot be read as text (a `new RegExp` whose source is computed) is reported as
// built, with what the template has around its substitutions, so that a test can decide on it explicitly.
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { SyntaxKind } from 'typescript/unstable/ast';
import type { Node, SourceFile } from 'typescript/unstable/ast';
import {
  isCallExpression,
  isElementAccessExpression,
  isIdentifier,
  isJsxAttribute,
  isJsxExpression,
  isNewExpression,
  isNoSubstitutionTemplateLiteral,
  isPropertyAccessExpression,
  isRegularExpressionLiteral,
  isStringLiteral,
  isTemplateExpression,
} from 'typescript/unstable/ast/is';
import { API } from 'typescript/unstable/sync';

interface Place {
  /** Relative to the repository, with forward slashes. */
  file: string;
  /** 1-based. */
  line: number;
  /** The expression as written. */
  code: string;
}

/** A pattern whose source and flags are written in the code. */
export interface WrittenPattern extends Place {
  kind: 'written';
  source: string;
  flags: string;
}

/**
 * A pattern, or a reference to the RegExp constructor, whose source is not a literal: the test must know it by name.
 * `template` is set for a template literal source: its text around each substitution, and each substitution as written.
 */
export interface BuiltPattern extends Place {
  kind: 'built';
  template: { head: string; spans: { expression: string; text: string }[] } | null;
  flags: string | null;
}

export type FoundPattern = WrittenPattern | BuiltPattern;

// String methods that turn a string argument into a regular expression (String.prototype.match, matchAll, search).
const COMPILING_METHODS = new Set(['match', 'matchAll', 'search']);

const SOURCE_EXTENSION = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** Every script file under `directory`, whether or not a program includes it. */
export function scriptFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE_EXTENSION.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * Every pattern in the script files under `directory`, parsed by the compiler through the project's tsconfig. Throws
 * when a file there is not in the program: a file the parser never saw could hide a pattern.
 */
export function findRegularExpressions(root: string, directory: string, tsconfig = 'tsconfig.json'): FoundPattern[] {
  const api = new API({ cwd: root });
  try {
    const program = api.updateSnapshot({ openProject: join(root, tsconfig) }).getProjects()[0]!.program;
    const found: FoundPattern[] = [];
    for (const path of scriptFiles(resolve(root, directory))) {
      const sourceFile = program.getSourceFile(path);
      if (!sourceFile) throw new Error(`${relative(root, path)} is not in ${tsconfig}'s program, so it was not parsed`);
      visit(sourceFile, sourceFile, relative(root, path).split('\\').join('/'), found);
    }
    return found;
  } finally {
    api.close();
  }
}

function visit(node: Node, sourceFile: SourceFile, file: string, found: FoundPattern[]): void {
  const place = (at: Node): Place => ({
    file,
    line: sourceFile.getLineAndCharacterOfPosition(at.getStart(sourceFile)).line + 1,
    code: at.getText(sourceFile),
  });
  if (isRegularExpressionLiteral(node)) {
    const text = node.text;
    const end = text.lastIndexOf('/');
    found.push({ kind: 'written', ...place(node), source: text.slice(1, end), flags: text.slice(end + 1) });
  } else if ((isNewExpression(node) || isCallExpression(node)) && namesRegExp(node.expression)) {
    found.push(constructed(place(node), [...(node.arguments ?? [])]));
  } else if (
    isCallExpression(node) &&
    isPropertyAccessExpression(node.expression) &&
    COMPILING_METHODS.has(node.expression.name.text) &&
    node.arguments[0] !== undefined &&
    literalText(node.arguments[0]) !== null
  ) {
    found.push({ kind: 'written', ...place(node), source: literalText(node.arguments[0])!, flags: '' });
  } else if (isJsxAttribute(node) && node.name.getText(sourceFile) === 'pattern' && node.initializer !== undefined) {
    // An input's pattern attribute: the browser compiles it, anchored whole, with the unicode flag (HTML's `v`, whose
    // syntax recheck reads as `u`'s), and runs it on what the visitor types.
    const value = isJsxExpression(node.initializer) ? node.initializer.expression : node.initializer;
    const text = value === undefined ? null : literalText(value);
    found.push(
      text === null
        ? { kind: 'built', ...place(node), template: null, flags: 'u' }
        : { kind: 'written', ...place(node), source: `^(?:${text})$`, flags: 'u' },
    );
  } else if (namesRegExp(node) && !isCallee(node) && !onlyNamesAType(node)) {
    // The constructor handed on (`const R = RegExp`, `Reflect.construct(RegExp, ...)`): what it builds is not here.
    found.push({ kind: 'built', ...place(node), template: null, flags: null });
  }
  node.forEachChild((child) => visit(child, sourceFile, file, found));
}

function constructed(at: Place, [source, flags]: Node[]): FoundPattern {
  const flagText = flags === undefined ? '' : literalText(flags);
  const sourceText = source === undefined ? '(?:)' : literalText(source);
  if (sourceText !== null && flagText !== null) return { kind: 'written', ...at, source: sourceText, flags: flagText };
  const template =
    source !== undefined && isTemplateExpression(source)
      ? {
          head: source.head.text,
          spans: source.templateSpans.map((span) => ({
            expression: span.expression.getText(span.getSourceFile()),
            text: span.literal.text,
          })),
        }
      : null;
  return { kind: 'built', ...at, template, flags: flagText };
}

function literalText(node: Node): string | null {
  return isStringLiteral(node) || isNoSubstitutionTemplateLiteral(node) ? node.text : null;
}

/** `RegExp`, `globalThis.RegExp`, `window['RegExp']` and the like, in an expression. */
function namesRegExp(node: Node): boolean {
  if (isIdentifier(node))
    return node.text === 'RegExp' && !(isPropertyAccessExpression(node.parent) && node.parent.name === node);
  if (isPropertyAccessExpression(node)) return node.name.text === 'RegExp';
  if (isElementAccessExpression(node)) return literalText(node.argumentExpression) === 'RegExp';
  return false;
}

function isCallee(node: Node): boolean {
  const parent = node.parent;
  return (isNewExpression(parent) || isCallExpression(parent)) && parent.expression === node;
}

/** A type position, or the right side of `instanceof`: nothing is built there. */
function onlyNamesAType(node: Node): boolean {
  const parent = node.parent;
  if (parent.kind === SyntaxKind.TypeReference || parent.kind === SyntaxKind.ExpressionWithTypeArguments) return true;
  return (
    parent.kind === SyntaxKind.BinaryExpression &&
    (parent as unknown as { operatorToken: Node }).operatorToken.kind === SyntaxKind.InstanceOfKeyword
  );
}
