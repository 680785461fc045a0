// The upstream contract lives in one folder (src/relay/upstream/contract/), so that adapting the relay to the real
// service is one place's change: no other relay source names an upstream path or an event type.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const relayDir = fileURLToPath(new URL('../../../src/relay/', import.meta.url));
const COMMENT = /^\s*(\/\/|\/\*|\*)/;
const CONTRACT_NAMES = /['"`]\/api\/|conversation\.(message_created|status_changed)/;

it('no relay source outside upstream/contract/ names an upstream path or event type', () => {
  const files = readdirSync(relayDir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name).slice(relayDir.length))
    .filter((file) => !file.startsWith('upstream/contract/'));
  expect(files.length).toBeGreaterThan(50);
  const naming = files.filter((file) =>
    readFileSync(join(relayDir, file), 'utf8')
      .split('\n')
      .some((line) => !COMMENT.test(line) && CONTRACT_NAMES.test(line)),
  );
  expect(naming).toEqual([]);
});
