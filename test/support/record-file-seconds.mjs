// Writes test/support/file-seconds.json, the seconds each test file took, which the longest-first sequencer starts
// files by, from Vitest JSON reports of a whole run: `node test/support/record-file-seconds.mjs report.json...`, each
// report from `npx vitest run --project NAME --reporter=json --outputFile=NAME.json`, one per project and named after
// it (Vitest's JSON report does not say which project ran a file). Files no report names keep their seconds.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TABLE = new URL('./file-seconds.json', import.meta.url);
const seconds = JSON.parse(readFileSync(TABLE, 'utf8'));

for (const path of process.argv.slice(2)) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  for (const file of report.testResults) {
    const project = projectOf(path);
    seconds[`${project}:${relative(ROOT, file.name)}`] = Math.round((file.endTime - file.startTime) / 1_000);
  }
}

/** The project a report was written for, from its name: `/tmp/unit.json`, `/tmp/firefox-before.json`. */
function projectOf(reportPath) {
  const named = /(unit|browser|firefox|webkit)[^/]*\.json$/.exec(reportPath)?.[1];
  if (!named) throw new Error(`name ${reportPath} after the one project it reports (unit.json, browser.json, …)`);
  return named;
}

const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(TABLE, `${JSON.stringify(sorted, null, 2)}\n`);
