// A small W3C WebDriver (classic) client over fetch: the endpoints the WebKit engine needs and nothing more.
// https://www.w3.org/TR/webdriver2/

export type ElementRef = { 'element-6066-11e4-a52e-4f735466cecf': string };
export type ShadowRef = { 'shadow-6066-11e4-a52e-4f735466cecf': string };
export type Locator = { using: 'css selector' | 'xpath'; value: string };

export class WebDriverError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export class WebDriverSession {
  private constructor(
    private readonly base: string,
    readonly id: string,
  ) {}

  static async create(driverUrl: string, capabilities: object): Promise<WebDriverSession> {
    const value = await call<{ sessionId: string }>(driverUrl, 'POST', '/session', {
      capabilities: { alwaysMatch: capabilities },
    });
    return new WebDriverSession(driverUrl, value.sessionId);
  }

  command<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: object): Promise<T> {
    return call<T>(this.base, method, `/session/${this.id}${path}`, body ?? (method === 'POST' ? {} : undefined));
  }

  navigate = (url: string) => this.command<null>('POST', '/url', { url });
  refresh = () => this.command<null>('POST', '/refresh');
  /** Runs `body` (a function body) with `args`; an async script resolves through its last argument. */
  executeAsync = <T>(script: string, args: unknown[]) => this.command<T>('POST', '/execute/async', { script, args });
  findElement = (locator: Locator) => this.command<ElementRef>('POST', '/element', locator);
  findFromElement = (element: ElementRef, locator: Locator) =>
    this.command<ElementRef>('POST', `/element/${elementId(element)}/element`, locator);
  shadowRoot = (element: ElementRef) => this.command<ShadowRef>('GET', `/element/${elementId(element)}/shadow`);
  findFromShadow = (shadow: ShadowRef, locator: Locator) =>
    this.command<ElementRef>('POST', `/shadow/${shadow['shadow-6066-11e4-a52e-4f735466cecf']}/element`, locator);
  click = (element: ElementRef) => this.command<null>('POST', `/element/${elementId(element)}/click`);
  switchToFrame = (frame: ElementRef | null) => this.command<null>('POST', '/frame', { id: frame });
  performActions = (actions: object[]) => this.command<null>('POST', '/actions', { actions });
  releaseActions = () => this.command<null>('DELETE', '/actions');
  setWindowRect = (rect: { width: number; height: number }) => this.command<object>('POST', '/window/rect', rect);
  screenshot = () => this.command<string>('GET', '/screenshot');
  delete = () => this.command<null>('DELETE', '');
}

const elementId = (element: ElementRef) => element['element-6066-11e4-a52e-4f735466cecf'];

async function call<T>(base: string, method: string, path: string, body?: object): Promise<T> {
  // Every command answers well within this, or the failure names the command that hung.
  const response = await fetch(base + path, {
    method,
    headers: body ? { 'Content-Type': 'application/json; charset=utf-8' } : {},
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(20_000),
  }).catch((error: unknown) => {
    throw new WebDriverError('timeout', `${method} ${path.replace(/^\/session\/[^/]+/, '')}: ${String(error)}`);
  });
  const parsed = (await response.json()) as { value: T | { error: string; message: string } };
  if (!response.ok) {
    const failure = parsed.value as { error?: string; message?: string };
    throw new WebDriverError(
      failure.error ?? String(response.status),
      `${method} ${path.replace(/^\/session\/[^/]+/, '')}: ${failure.message ?? ''}`,
    );
  }
  return parsed.value as T;
}
