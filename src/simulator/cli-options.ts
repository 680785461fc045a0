// `npm run simulator` flags, parsed into server options with an error that names the flag. Kept apart from main.ts so
// the rules are tested without starting a process.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { FaultSettings } from './faults.ts';

export interface SimulatorCliOptions {
  port: number;
  host: string;
  randomSeed?: number;
  faults: FaultSettings;
  /** Where to send signed upstream events; both flags or neither. */
  events?: { url: string; secret: string };
}

export const DEFAULT_SIMULATOR_PORT = 8788;

export const SIMULATOR_USAGE = `Usage: npm run simulator -- [options]
  --port N                      port, 0-65535 (default ${DEFAULT_SIMULATOR_PORT}; 0 = any free port)
  --host H                      address to listen on (default 127.0.0.1)
  --latency-ms N                delay every /api answer by N ms
  --error-rate R                share (0-1) of /api requests answered 500
  --rate-limit-rate R           share (0-1) answered 429 with Retry-After
  --retry-after-seconds N       Retry-After of those 429s (default 1)
  --drop-rate R                 share (0-1) whose connection is dropped before it is handled
  --drop-after-handling-rate R  share (0-1) handled (a message is stored), then dropped before the answer
  --error-after-handling-rate R share (0-1) handled (a conversation or message is stored), then answered 500
  --bad-gateway-after-handling-rate R
                                share (0-1) handled (a conversation or message is stored), then answered 502
  --fault-paths REGEX           only /api paths matching REGEX get faults (e.g. "messages")
  --fault-methods LIST          only these methods get faults, comma-separated (e.g. "POST")
  --ignore-client-reference     behave as a service that does not know client_reference: creates do not keep it,
                                the conversation list does not filter by it
  --seed N                      seeds which requests get faults, so a run can be repeated
  --events-url URL              POST a signed upstream event to URL on every new message and status change
                                (a relay's /v1/upstream-events)
  --events-secret-file PATH     a file holding the events' HMAC key (the relay's UPSTREAM_EVENTS_SECRET); or set
                                UPSTREAM_EVENTS_SECRET in the environment (with --events-url)
  --events-secret SECRET        the key on the command line, where ps shows it to every user: prefer the above`;

export type ParseResult = { ok: true; options: SimulatorCliOptions } | { ok: false; error: string };

class FlagError extends Error {}

function wholeNumber(flag: string, raw: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[0-9]+$/.test(raw) || Number(raw) > max)
    throw new FlagError(`--${flag} must be a whole number from 0 to ${max}, not "${raw}".`);
  return Number(raw);
}

function share(flag: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new FlagError(`--${flag} must be a share from 0 to 1 (0.1 = 10 %), not "${raw}".`);
  }
  return value;
}

function httpUrl(flag: string, raw: string): string {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Reported below with the same message.
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new FlagError(`--${flag} must be an http:// or https:// URL, not "${raw}".`);
  }
  return url.href;
}

function pattern(flag: string, raw: string): RegExp {
  try {
    return new RegExp(raw);
  } catch {
    throw new FlagError(`--${flag} must be a regular expression, not "${raw}".`);
  }
}

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

function methods(flag: string, raw: string): string[] {
  const list = raw.split(',').map((method) => method.trim().toUpperCase());
  if (list.some((method) => !METHODS.includes(method)))
    throw new FlagError(`--${flag} must list methods among ${METHODS.join(', ')}, not "${raw}".`);
  return list;
}

/** Where the events' secret may come from besides the flag: the environment and files (tests pass their own). */
export interface SecretSources {
  env: Readonly<Record<string, string | undefined>>;
  readFile: (path: string) => string;
}

const processSources: SecretSources = { env: process.env, readFile: (path) => readFileSync(path, 'utf8') };

function eventsSecretFrom(
  flag: string | undefined,
  file: string | undefined,
  sources: SecretSources,
): string | undefined {
  if (flag !== undefined && file !== undefined)
    throw new FlagError('give --events-secret or --events-secret-file, not both.');
  if (flag !== undefined) return flag;
  if (file !== undefined) {
    try {
      // A trailing newline is what `echo` and editors leave, not part of the key.
      return sources.readFile(file).replace(/\r?\n$/, '');
    } catch {
      throw new FlagError(`--events-secret-file: cannot read "${file}".`);
    }
  }
  return sources.env.UPSTREAM_EVENTS_SECRET;
}

export function parseSimulatorArgs(args: readonly string[], sources: SecretSources = processSources): ParseResult {
  try {
    const { values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'latency-ms': { type: 'string' },
        'error-rate': { type: 'string' },
        'rate-limit-rate': { type: 'string' },
        'retry-after-seconds': { type: 'string' },
        'drop-rate': { type: 'string' },
        'drop-after-handling-rate': { type: 'string' },
        'error-after-handling-rate': { type: 'string' },
        'bad-gateway-after-handling-rate': { type: 'string' },
        'fault-paths': { type: 'string' },
        'fault-methods': { type: 'string' },
        'ignore-client-reference': { type: 'boolean' },
        seed: { type: 'string' },
        'events-url': { type: 'string' },
        'events-secret': { type: 'string' },
        'events-secret-file': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    const faults: FaultSettings = {};
    if (values['latency-ms'] !== undefined) faults.latencyMs = wholeNumber('latency-ms', values['latency-ms'], 600_000);
    if (values['error-rate'] !== undefined) faults.errorRate = share('error-rate', values['error-rate']);
    if (values['rate-limit-rate'] !== undefined)
      faults.rateLimitRate = share('rate-limit-rate', values['rate-limit-rate']);
    if (values['retry-after-seconds'] !== undefined)
      faults.retryAfterSeconds = wholeNumber('retry-after-seconds', values['retry-after-seconds'], 86_400);
    if (values['drop-rate'] !== undefined) faults.dropRate = share('drop-rate', values['drop-rate']);
    if (values['drop-after-handling-rate'] !== undefined)
      faults.dropAfterHandlingRate = share('drop-after-handling-rate', values['drop-after-handling-rate']);
    if (values['error-after-handling-rate'] !== undefined)
      faults.errorAfterHandlingRate = share('error-after-handling-rate', values['error-after-handling-rate']);
    if (values['bad-gateway-after-handling-rate'] !== undefined)
      faults.badGatewayAfterHandlingRate = share(
        'bad-gateway-after-handling-rate',
        values['bad-gateway-after-handling-rate'],
      );
    if (values['fault-paths'] !== undefined) faults.match = pattern('fault-paths', values['fault-paths']);
    if (values['fault-methods'] !== undefined) faults.methods = methods('fault-methods', values['fault-methods']);
    if (values['ignore-client-reference'] === true) faults.ignoreClientReference = true;
    const total =
      (faults.errorRate ?? 0) +
      (faults.rateLimitRate ?? 0) +
      (faults.dropRate ?? 0) +
      (faults.dropAfterHandlingRate ?? 0) +
      (faults.errorAfterHandlingRate ?? 0) +
      (faults.badGatewayAfterHandlingRate ?? 0);
    if (total > 1) throw new FlagError(`the fault shares add up to ${total}; together they must be at most 1.`);
    const options: SimulatorCliOptions = {
      port: values.port === undefined ? DEFAULT_SIMULATOR_PORT : wholeNumber('port', values.port, 65_535),
      host: values.host ?? '127.0.0.1',
      faults,
    };
    if (values.seed !== undefined) options.randomSeed = wholeNumber('seed', values.seed, 2 ** 32 - 1);
    const eventsUrl = values['events-url'];
    const eventsSecret = eventsSecretFrom(values['events-secret'], values['events-secret-file'], sources);
    if (
      eventsUrl === undefined &&
      (values['events-secret'] !== undefined || values['events-secret-file'] !== undefined)
    ) {
      throw new FlagError('--events-url and --events-secret go together: give both or neither.');
    }
    if (eventsUrl !== undefined && eventsSecret === undefined) {
      throw new FlagError(
        '--events-url needs the events secret: UPSTREAM_EVENTS_SECRET in the environment, --events-secret-file or --events-secret.',
      );
    }
    if (eventsUrl !== undefined && eventsSecret !== undefined) {
      // The secret is not echoed in the message: it may end up in a terminal's scrollback or a CI log.
      if (eventsSecret === '') throw new FlagError('--events-secret must not be empty.');
      options.events = { url: httpUrl('events-url', eventsUrl), secret: eventsSecret };
    }
    return { ok: true, options };
  } catch (error) {
    if (error instanceof FlagError) return { ok: false, error: error.message };
    // node:util parseArgs errors name the unknown option or the missing value.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: message };
  }
}
