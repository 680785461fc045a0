// Reading the built files the relay serves.
import { readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';

/** Reads a file under `root`, refusing any path that would step outside it. */
export async function readUnder(root: string, relativePath: string): Promise<Buffer | null> {
  const path = normalize(join(root, relativePath));
  if (!path.startsWith(normalize(root) + sep)) return null;
  try {
    return await readFile(path);
  } catch {
    return null;
  }
}
