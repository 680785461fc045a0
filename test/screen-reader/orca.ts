// A real screen reader through a whole conversation: Orca (GNOME's screen reader, over AT-SPI) with Chromium under
// Xvfb on a practice page with the relay on another site, the product built as shipped (dist/). It writes what Orca
// spoke, read from its debug log's SPEECH OUTPUT lines, to docs/screen-reader/orca-<locale>.txt.
// `npm run test:screen-reader` (builds first); `npm test` runs it too, through orca.test.ts.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Frame, type Page } from 'playwright-core';
import { CHROMIUM_PATH, PLAYWRIGHT_DISABLED_FEATURES, serveHostPages } from '../browser/harness.ts';
import { startProduct } from '../support/product.ts';
import { SIMULATOR_SETTLE_WINDOWS } from '../support/simulator-settle-windows.ts';
import { CATALOGS } from '../../src/shared/locales/catalogs.ts';

// Where the transcripts go: the docs by default; npm test's run (orca.test.ts) writes them elsewhere.
const OUT_DIR =
  process.env.ORCA_TRANSCRIPTS_DIR ?? fileURLToPath(new URL('../../docs/screen-reader/', import.meta.url));
const SETTINGS = fileURLToPath(new URL('./orca-user-settings.conf', import.meta.url));
const LOCALES = process.argv.slice(2).length ? (process.argv.slice(2) as ('en' | 'ar')[]) : (['en', 'ar'] as const);
const MESSAGES = {
  en: { question: 'What are your opening hours?', lost: 'Is this sent?', card: 'My card is 4111 1111 1111 1111' },
  ar: { question: 'ما مواعيد العمل لديكم؟', lost: 'هل أُرسلت؟', card: 'رقم بطاقتي 4111 1111 1111 1111' },
};

const which = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['orca', 'Xvfb', 'dbus-launch', CHROMIUM_PATH].filter((tool) => !which(tool));
if (!existsSync('/usr/libexec/at-spi-bus-launcher')) missing.push('/usr/libexec/at-spi-bus-launcher (at-spi2-core)');
if (missing.length) {
  console.error(
    `test:screen-reader needs ${missing.join(', ')}.\nOn Debian, as root: apt-get install -y --no-install-recommends orca at-spi2-core dbus-x11 xvfb`,
  );
  process.exit(2);
}

/**
 * Orca, with its debug log written line by line. Orca opens the log with Python's default buffering (in blocks), so
 * the file lags what Orca has spoken by up to a block: a step's words sit unseen in the buffer while the step waits for
 * them, and the last ones ("This chat has ended.") are lost when Orca is killed before it flushes, the log then
 * ending in the middle of an event. Orca's own script runs unchanged; only the debug file's `open` gets line buffering,
 * with whatever else Orca asks of it.
 */
const ORCA_WITH_LINE_BUFFERED_LOG = [
  'import builtins, runpy, shutil, sys',
  'debug_file = sys.argv[sys.argv.index("--debug-file") + 1]',
  'opened = builtins.open',
  'builtins.open = lambda file, mode="r", buffering=-1, *rest, **named: opened(file, mode, 1 if file == debug_file else buffering, *rest, **named)',
  'sys.argv[0] = shutil.which("orca")',
  'runpy.run_path(sys.argv[0], run_name="__main__")',
].join('\n');
/** The interpreter Orca's script names (`#!/usr/bin/python3`): the one with Orca's modules, not whichever is on PATH. */
function orcaInterpreter(): string[] {
  const script = spawnSync('sh', ['-c', 'command -v orca'], { encoding: 'utf8' }).stdout.trim();
  const shebang = readFileSync(script, 'utf8').split('\n', 1)[0]!;
  return shebang.replace(/^#!/, '').trim().split(/\s+/);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const children: ChildProcess[] = [];
function start(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.resume();
  children.push(child);
  return child;
}
function stopAll() {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
}
process.on('exit', stopAll);

/** Starts Xvfb on a display it finds free, and returns that display (":N"). */
async function startXvfb(env: NodeJS.ProcessEnv): Promise<string> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  xvfb.stderr?.resume();
  children.push(xvfb);
  let written = '';
  xvfb.stdio[3]?.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  await waitFor(() => /^\d+\n/.test(written), 'Xvfb to choose a display');
  return `:${written.trim()}`;
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * What Orca spoke, in order, from its debug log: one line per utterance ("hh:mm:ss.micro - SPEECH OUTPUT: 'text'",
 * sometimes followed by the voice's settings). Orca logs what it hands to the speech server whether or not one runs
 * (Xvfb has no sound card and none is started): the words, not the audio.
 */
function spokenLines(log: string): { at: number; text: string }[] {
  return [...log.matchAll(/^(\d\d):(\d\d):(\d\d\.\d+) - SPEECH OUTPUT: '(.*)'(?:\{.*\})?$/gm)]
    .map(([, hours, minutes, seconds, text]) => ({
      at: Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds),
      text: text!,
    }))
    .filter((line) => line.text.trim() !== '');
}
/** Now as Orca stamps its log lines: seconds since local midnight. */
function secondsOfDay(): number {
  const now = new Date();
  return now.getHours() * 3600 + now.getMinutes() * 60 + now.getSeconds() + now.getMilliseconds() / 1000;
}

/**
 * Waits until Orca has spoken each of `words` since `from` (an index into its utterances), then until its debug log
 * stops growing: Orca is done with what the step made it say. Both waits are bounded, so an announcement Orca never
 * makes fails the run's count rather than hanging it. Waiting on Orca itself, not on the clock: on a loaded machine
 * Orca works through its event queue seconds behind the page, and a fixed pause ended the run before it had spoken.
 */
async function orcaSaid(debugFile: string, from: number, words: string[], ms = 45_000) {
  const spoken = () => spokenLines(readFileSync(debugFile, 'utf8')).slice(from);
  const bare = (text: string) => text.replace(/[\u2066-\u2069]/g, '');
  const until = Date.now() + ms;
  while (Date.now() < until && !words.every((word) => spoken().some((line) => bare(line.text).includes(word))))
    await sleep(250);
  let size = -1;
  const quietUntil = Date.now() + 20_000;
  while (Date.now() < quietUntil) {
    const now = statSync(debugFile).size;
    if (now === size) break;
    size = now;
    await sleep(1500);
  }
}
/** How many utterances Orca has spoken so far: where a step's waiting starts. */
const utterances = (debugFile: string) => spokenLines(readFileSync(debugFile, 'utf8')).length;

/** Ends a process and waits for it to exit (Orca writes the end of its debug log as it exits). */
async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  if (!(await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]))) child.kill('SIGKILL');
}

async function runLocale(locale: 'en' | 'ar') {
  const strings = CATALOGS[locale];
  const scratch = mkdtempSync(join(tmpdir(), 'orca-run-'));
  const debugFile = join(scratch, 'orca-debug.out');
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: scratch,
    XDG_RUNTIME_DIR: scratch,
    XDG_CONFIG_HOME: join(scratch, 'config'),
  };

  // Xvfb picks a free display itself and writes its number on fd 3: other programs on the machine (other test runs)
  // may hold any fixed number.
  baseEnv.DISPLAY = await startXvfb(baseEnv);
  const dbus = spawnSync('dbus-launch', ['--sh-syntax'], { env: baseEnv, encoding: 'utf8' }).stdout;
  const address = /DBUS_SESSION_BUS_ADDRESS='([^']+)'/.exec(dbus)?.[1];
  const dbusPid = Number(/DBUS_SESSION_BUS_PID=(\d+)/.exec(dbus)?.[1]);
  if (!address) throw new Error(`dbus-launch gave no session bus: ${dbus}`);
  process.once('exit', () => void (dbusPid && process.kill(dbusPid, 'SIGTERM')));
  const env = { ...baseEnv, DBUS_SESSION_BUS_ADDRESS: address, ACCESSIBILITY_ENABLED: '1', NO_AT_BRIDGE: '0' };
  start('/usr/libexec/at-spi-bus-launcher', ['--launch-immediately'], env);
  await sleep(1000);
  spawnSync(
    'dbus-send',
    [
      '--session',
      '--dest=org.a11y.Bus',
      '/org/a11y/bus',
      'org.freedesktop.DBus.Properties.Set',
      'string:org.a11y.Status',
      'string:IsEnabled',
      'variant:boolean:true',
    ],
    { env },
  );
  // No speech server, on every machine: Orca logs each utterance before it hands it to one, and the run reads the log.
  // Speech Dispatcher starts only where it finds an audio output (here it never does: Orca's log says "SPEECH: Not
  // available"), so a machine with a sound device would otherwise run Orca down another path than every run here.
  mkdirSync(join(scratch, 'config', 'speech-dispatcher'), { recursive: true });
  writeFileSync(join(scratch, 'config', 'speech-dispatcher', 'speechd.conf'), 'DisableAutoSpawn\n');
  mkdirSync(join(scratch, 'orca-prefs'), { recursive: true });
  // Orca's settings spelled out (those Orca 43.1 writes on a first start), not whatever defaults the installed Orca or
  // a distribution's patches bring: the description read after a control's name (the greeting), live regions, verbosity.
  copyFileSync(SETTINGS, join(scratch, 'orca-prefs', 'user-settings.conf'));
  const [interpreter, ...interpreterArgs] = orcaInterpreter();
  const orca = start(
    interpreter!,
    [
      ...interpreterArgs,
      '-c',
      ORCA_WITH_LINE_BUFFERED_LOG,
      '--replace',
      '--user-prefs',
      join(scratch, 'orca-prefs'),
      '--debug-file',
      debugFile,
    ],
    env,
  );
  await waitFor(
    () => existsSync(debugFile) && readFileSync(debugFile, 'utf8').length > 10_000,
    'Orca to start',
    30_000,
  );
  await orcaSaid(debugFile, 0, ['Screen reader on']);

  const product = await startProduct({
    relayHost: 'chat.vendor-relay.test',
    // Every send fails upstream in one step: with the default windows, that step was most of each language's run.
    environment: SIMULATOR_SETTLE_WINDOWS,
  });
  const relay = `http://chat.vendor-relay.test:${new URL(product.relayUrl).port}`;
  const host = await serveHostPages({
    '/': () => ({
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Smile Dental</title></head><body><main><h1>Smile Dental</h1><a href="/services">Our services</a></main>
<script async src="${relay}/loader.js" data-client-id="smile-dental" data-locale="${locale}"></script></body></html>`,
    }),
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: false,
    env,
    ignoreDefaultArgs: [`--disable-features=${PLAYWRIGHT_DISABLED_FEATURES.join(',')}`],
    args: [
      '--no-sandbox',
      '--force-renderer-accessibility',
      '--no-first-run',
      '--host-resolver-rules=MAP *.test 127.0.0.1',
      `--disable-features=${PLAYWRIGHT_DISABLED_FEATURES.filter((name) => name !== 'ThirdPartyStoragePartitioning').join(',')}`,
    ],
  });
  const marks: { at: number; label: string }[] = [];
  let from = 0;
  /** Marks a step in the transcript by its time, so the transcript shows what each action made Orca say. */
  const step = (label: string) => {
    marks.push({ at: secondsOfDay(), label });
    from = utterances(debugFile);
  };
  /** Waits for Orca to have said these words since the step began (and to have gone quiet). */
  const said = (...words: string[]) => orcaSaid(debugFile, from, words);
  const newMessage = strings.newMessageAnnouncement.split('{author}')[0]!;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page: Page = await context.newPage();
    step('open the practice page');
    await page.goto(`http://www.smile-dental.test:${host.port}/`);
    // There is no window manager under Xvfb: Chromium's window is made active as a patient's focused browser is,
    // or Orca takes the page for an inactive tab and ignores its live regions ("Live region source is not in
    // active tab" in its log).
    await page.bringToFront();
    await page.locator('practice-chat-q7x button').waitFor();
    // Orca reads the page as it loads, and reaches the launcher only when the launcher is drawn before Orca gets past
    // the end of the page: no announcement of ours, only the point at which Orca is done with the page. Not the
    // announcements' wait, which a page read without the launcher sat out in full.
    await orcaSaid(debugFile, from, [strings.panelLabel.replace('{bot}', 'Sunny')], 15_000);
    step('open the chat (click the launcher)');
    await page.locator('practice-chat-q7x button').click();
    const frame: Frame = (await (await page.locator('practice-chat-q7x iframe').elementHandle())!.contentFrame())!;
    await frame.locator('textarea').waitFor();
    await said(strings.greeting.replace('{bot}', 'Sunny'));
    step(`type and send "${MESSAGES[locale].question}"`);
    await frame.locator('textarea').pressSequentially(MESSAGES[locale].question);
    await said();
    step('press Enter; the bot replies');
    await frame.locator('textarea').press('Enter');
    await frame.locator('.message.bot').first().waitFor({ timeout: 10_000 });
    await said(newMessage);
    step(`click ${strings.talkToPerson}; a team member joins and replies`);
    await frame.locator('button', { hasText: strings.talkToPerson }).click();
    await frame.locator('.message.agent').first().waitFor({ timeout: 15_000 });
    await said(strings.escalated, newMessage);
    step(`send "${MESSAGES[locale].lost}" while every send fails upstream`);
    product.simulator.faults.set({ errorRate: 1, match: /messages\/$/ });
    await frame.locator('textarea').pressSequentially(MESSAGES[locale].lost);
    await frame.locator('textarea').press('Enter');
    await frame.locator('.message.visitor', { hasText: strings.failed }).waitFor({ timeout: 60_000 });
    await said(`${strings.failed} ${strings.retry}`);
    product.simulator.faults.reset();
    step(`click ${strings.retry}: the message is sent again, the connection recovers`);
    await frame.locator('button', { hasText: strings.retry }).click();
    await frame.locator('.message.visitor .failed').waitFor({ state: 'detached', timeout: 30_000 });
    await said(strings.sending, strings.reconnected);
    step(`type a card number and press Enter: the sensitive-data warning`);
    await frame.locator('textarea').pressSequentially(MESSAGES[locale].card);
    await said();
    await frame.locator('textarea').press('Enter');
    await said(strings.sensitiveTitle);
    step('Escape: the warning closes, the text stays in the composer');
    await page.keyboard.press('Escape');
    await said();
    step(`click ${strings.endChat}`);
    await frame.locator('button', { hasText: strings.endChat }).click();
    await said(strings.ended);
    step('end of run');
  } finally {
    await browser.close();
    await Promise.allSettled([product.close(), host.close()]);
    await stop(orca);
    stopAll();
  }
  const log = readFileSync(debugFile, 'utf8');
  const lines = spokenLines(log);
  const version = spawnSync('orca', ['--version'], { encoding: 'utf8' }).stdout.trim();
  const chromiumVersion = spawnSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const out: string[] = [
    `# What Orca spoke (its debug log's SPEECH OUTPUT lines), ${new Date().toISOString().slice(0, 10)}, locale ${locale}`,
    `# ${version}; ${chromiumVersion} with --force-renderer-accessibility; Xvfb, AT-SPI; npm run test:screen-reader`,
    '# Lines starting ">>" are the script\'s actions; the lines after each are what Orca said next.',
    '',
  ];
  const events = [...marks.map((mark) => ({ at: mark.at, text: `>> ${mark.label}` })), ...lines].sort(
    (a, b) => a.at - b.at,
  );
  out.push(...events.map((event) => event.text));
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, `orca-${locale}.txt`), `${out.join('\n')}\n`);
  console.log(`orca-${locale}.txt: ${lines.length} utterances`);
  // The run fails where Orca did not say each status announcement exactly once, or ignored live regions as another
  // tab's (see docs/accessibility.md).
  const problems: string[] = [];
  if (log.includes('Live region source is not in active tab'))
    problems.push('Orca ignored live regions as "not in active tab" (see docs/accessibility.md)');
  const statuses = [strings.escalated, strings.retrying, `${strings.failed} ${strings.retry}`, strings.sending];
  for (const phrase of [...statuses, strings.reconnected, strings.ended]) {
    const times = lines.filter((line) => line.text === phrase).length;
    if (times !== 1) problems.push(`"${phrase}" spoken ${times} times`);
  }
  // Said within a longer utterance: the greeting (on opening, as the composer's description) and the warning's title.
  for (const words of [strings.greeting.replace('{bot}', 'Sunny'), strings.sensitiveTitle]) {
    const times = lines.filter((line) => line.text.replace(/[\u2066-\u2069]/g, '').includes(words)).length;
    if (times !== 1) problems.push(`"${words}" spoken ${times} times`);
  }
  // A failed run keeps Orca's whole log, which says what Orca was doing when an announcement was not made.
  if (process.env.KEEP_ORCA_LOG || problems.length) console.log(`Orca's whole debug log: ${debugFile}`);
  else {
    // D-Bus may have started the document portal, whose mount under the scratch directory outlives it briefly.
    try {
      rmSync(scratch, { recursive: true, force: true });
    } catch {
      console.warn(`left ${scratch} (a mount still in use)`);
    }
  }
  if (problems.length) {
    console.error(`orca-${locale}: ${problems.join('; ')}`);
    process.exitCode = 1;
  }
}

for (const locale of LOCALES) await runLocale(locale);
