// WebKitGTK as the patient's iPhone stands in for it: MiniBrowser driven by WebKitWebDriver (classic W3C WebDriver; it
// has no BiDi) on an Xvfb display, since MiniBrowser has no headless mode. Test host names reach 127.0.0.1 through
// host-proxy.ts. Console messages are never reported in automation sessions: tests read errors from the DOM instead.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { freePort } from '../../support/free-port.ts';
import { buttonXPath, callSource, type Engine, type FrameTarget, type Tab } from './driver.ts';
import { startHostProxy } from './host-proxy.ts';
import { WebDriverSession, type ElementRef, type Locator } from './webdriver-client.ts';

export const MINIBROWSER_PATHS = [
  '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
];
export const minibrowserPath = () =>
  process.env.MINIBROWSER_PATH || MINIBROWSER_PATHS.find((path) => existsSync(path)) || MINIBROWSER_PATHS[0]!;

const KEYS = { Enter: '\uE007', Escape: '\uE00C', Tab: '\uE004', Shift: '\uE008' } as const;

export async function launchWebKit(): Promise<Engine> {
  const processes: ChildProcess[] = [];
  const proxy = await startHostProxy();
  try {
    const display = await startXvfb(processes);
    const port = await freePort();
    const driver = spawn('WebKitWebDriver', [`--port=${port}`], {
      stdio: 'ignore',
      env: { ...process.env, DISPLAY: display },
    });
    processes.push(driver);
    const driverUrl = `http://127.0.0.1:${port}`;
    await waitUntil(async () => (await fetch(`${driverUrl}/status`)).ok, 'WebKitWebDriver did not start');
    // One session for the run, one window per tab: a window has its own sessionStorage (the frame's only storage,
    // partitioned by the page's site), and starting MiniBrowser for each tab sometimes hung for good on this machine.
    const session = await WebDriverSession.create(driverUrl, {
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: minibrowserPath(), args: ['--automation'] },
      proxy: { proxyType: 'manual', httpProxy: proxy.address },
      // Well under the test's own timeout, so a command that hangs fails with its name.
      timeouts: { implicit: 5_000, script: 10_000, pageLoad: 15_000 },
    });
    const home = await session.command<string>('GET', '/window');
    return {
      name: 'webkit',
      async newTab(options) {
        const { handle } = await session.command<{ handle: string }>('POST', '/window/new', { type: 'window' });
        await session.command('POST', '/window', { handle });
        await session.setWindowRect({ width: options?.width ?? 1280, height: options?.height ?? 900 });
        return webKitTab(session, async () => {
          await session.command('POST', '/window', { handle });
          await session.command('DELETE', '/window');
          await session.command('POST', '/window', { handle: home });
        });
      },
      async close() {
        await session.delete().catch(() => undefined);
        await stopAll(processes);
        await proxy.close();
      },
    };
  } catch (error) {
    await stopAll(processes);
    await proxy.close();
    throw error;
  }
}

function webKitTab(session: WebDriverSession, closeWindow: () => Promise<void>): Tab {
  const launcherHost = () => session.findElement({ using: 'css selector', value: 'practice-chat-q7x' });
  const inShadow = async (selector: string) =>
    session.findFromShadow(await session.shadowRoot(await launcherHost()), { using: 'css selector', value: selector });
  /** Runs `action` with the chat frame as the current browsing context, and always comes back to the page. */
  async function inFrame<T>(action: () => Promise<T>): Promise<T> {
    await session.switchToFrame(null);
    await session.switchToFrame(await inShadow('iframe'));
    try {
      return await action();
    } finally {
      await session.switchToFrame(null);
    }
  }
  async function run<R>(fn: (...args: never[]) => unknown, args: unknown[]): Promise<R> {
    const script = `const done = arguments[arguments.length - 1];
Promise.resolve().then(() => ${callSource(fn)}.apply(null, Array.prototype.slice.call(arguments, 0, -1)))
  .then((value) => done({ value: value === undefined ? null : value }), (error) => done({ error: String((error && error.stack) || error) }));`;
    const outcome = await session.executeAsync<{ value?: R; error?: string }>(script, args);
    if (outcome.error !== undefined) throw new Error(outcome.error);
    return outcome.value as R;
  }
  const keyActions = (keys: string[]) => [
    {
      type: 'key',
      id: 'keyboard',
      actions: keys.flatMap((value) => [
        { type: 'keyDown', value },
        { type: 'keyUp', value },
      ]),
    },
  ];
  const locate = (target: FrameTarget): Locator =>
    'css' in target
      ? { using: 'css selector', value: target.css }
      : { using: 'xpath', value: buttonXPath(target.button) };

  return {
    goto: async (url) => void (await session.navigate(url)),
    reload: async () => void (await session.refresh()),
    evaluate: (fn, ...args) => run(fn as never, args),
    evaluateInFrame: (fn, ...args) => inFrame(() => run(fn as never, args)),
    // A script's var and function declarations stay local to WebDriver's function body; axe-core sets window.axe.
    injectIntoFrame: (source) =>
      inFrame(async () => void (await session.executeAsync(`${source};\narguments[arguments.length - 1](null);`, []))),
    async click(target) {
      if ('launcher' in target) return void (await session.click(await inShadow('button')));
      if ('inPage' in target) {
        return void (await session.click(
          (await session.findElement({ using: 'css selector', value: target.inPage })) as ElementRef,
        ));
      }
      await inFrame(async () => session.click((await session.findElement(locate(target))) as ElementRef));
    },
    async type(text) {
      await session.performActions(keyActions([...text]));
    },
    async press(key) {
      if (key === 'Shift+Tab') {
        await session.performActions([
          {
            type: 'key',
            id: 'keyboard',
            actions: [
              { type: 'keyDown', value: KEYS.Shift },
              { type: 'keyDown', value: KEYS.Tab },
              { type: 'keyUp', value: KEYS.Tab },
              { type: 'keyUp', value: KEYS.Shift },
            ],
          },
        ]);
      } else await session.performActions(keyActions([KEYS[key]]));
      await session.releaseActions();
    },
    async screenshot(path) {
      writeFileSync(path, Buffer.from(await session.screenshot(), 'base64'));
    },
    close: closeWindow,
  };
}

/** Xvfb on a display it picks itself (-displayfd), so runs side by side never collide. */
async function startXvfb(processes: ChildProcess[]): Promise<string> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  processes.push(xvfb);
  const number = await new Promise<string>((resolve, reject) => {
    let text = '';
    xvfb.stdio[3]!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.trim());
    });
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code})`)));
    setTimeout(() => reject(new Error('Xvfb did not start')), 10_000).unref();
  });
  return `:${number}`;
}

async function waitUntil(check: () => Promise<boolean>, why: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(why);
}

async function stopAll(processes: ChildProcess[]) {
  await Promise.all(
    processes.reverse().map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
        }),
    ),
  );
}
