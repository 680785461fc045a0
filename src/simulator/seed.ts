// The seeded organization, account and webchat configurations (docs/simulator.md). Fixed ids, so tests and
// the demo page can name them; opaque-looking, because clients must treat ids as opaque.

export const SEED = {
  username: 'demo@practice.example',
  password: 'demo-password',
  organizationId: 'org_7c1e4b90',
  grantedPracticeId: 'prc_3fa81d2c', // Demo Dental: the demo configurations and the seeded calls
  smileDentalPracticeId: 'prc_5d0c6a17', // Smile Dental: the smile-dental configuration
  otherPracticeId: 'prc_9b27e05a', // Northside Medical
} as const;

export interface SeedIds {
  username: string;
  password: string;
  grantedPracticeId: string;
  smileDentalPracticeId: string;
  otherPracticeId: string;
  organizationId: string;
}

export interface PracticeSeed {
  id: string;
  name: string;
  /** Whether the seeded account may see it. */
  granted: boolean;
  /** Who answers as the practice's team member, in the simulator's replies and on the staff page. */
  teamMemberName: string;
}

export const PRACTICES: readonly PracticeSeed[] = [
  { id: SEED.grantedPracticeId, name: 'Demo Dental', granted: true, teamMemberName: 'Maria' },
  { id: SEED.smileDentalPracticeId, name: 'Smile Dental', granted: true, teamMemberName: 'Grace' },
  { id: SEED.otherPracticeId, name: 'Northside Medical', granted: false, teamMemberName: 'Omar' },
];

export interface ConfigurationSeed {
  id: string;
  practice: string;
  domains: readonly string[];
  /** `signed`: a fresh signed URL of the simulator's logo on every request; otherwise this literal value. */
  logo: { kind: 'signed' } | { kind: 'literal'; value: string };
  color: string;
  opacity: number;
  googleTagId: string;
  isActive: boolean;
  botName: string;
}

const signed = { kind: 'signed' } as const;
const local = ['localhost', '127.0.0.1'] as const;

export const CONFIGURATIONS: readonly ConfigurationSeed[] = [
  {
    id: 'demo-client',
    practice: SEED.grantedPracticeId,
    domains: local,
    logo: signed,
    color: '#0f766e',
    opacity: 100,
    googleTagId: '',
    isActive: true,
    botName: 'Aimee',
  },
  {
    id: 'smile-dental',
    practice: SEED.smileDentalPracticeId,
    domains: ['www.smile-dental.test', '*.smile-dental.test', ...local],
    logo: signed,
    color: '#1d4ed8',
    opacity: 90,
    googleTagId: '',
    isActive: true,
    botName: 'Sunny',
  },
  {
    id: 'demo-inactive',
    practice: SEED.grantedPracticeId,
    domains: local,
    logo: signed,
    color: '#0f766e',
    opacity: 100,
    googleTagId: '',
    isActive: false,
    botName: 'Aimee',
  },
  {
    id: 'demo-other-practice',
    practice: SEED.otherPracticeId,
    domains: local,
    logo: signed,
    color: '#7c3aed',
    opacity: 100,
    googleTagId: '',
    isActive: true,
    botName: 'Nora',
  },
  {
    // Empty colour and tag are documented as possible; the logo stays a real signed URL so only those differ.
    id: 'demo-empty-color',
    practice: SEED.grantedPracticeId,
    domains: local,
    logo: signed,
    color: '',
    opacity: 0,
    googleTagId: '',
    isActive: true,
    botName: 'Aimee',
  },
  {
    // A GA4 tag: the panel may send its coarse analytics events, and the frame's CSP allows exactly that beacon.
    id: 'demo-analytics',
    practice: SEED.grantedPracticeId,
    domains: local,
    logo: signed,
    color: '#b45309',
    opacity: 100,
    googleTagId: 'G-DEMO12345',
    isActive: true,
    botName: 'Aimee',
  },
  {
    // Values the relay must neutralise: CSS injection, markup, script URLs, entries that are not plain host names.
    id: 'demo-hostile',
    practice: SEED.grantedPracticeId,
    domains: [
      'https://evil.example/path',
      '*',
      '203.0.113.7',
      'foo.*.example.com',
      'Smile-Dental.TEST.',
      '*.smile-dental.test',
    ],
    logo: { kind: 'literal', value: 'javascript:alert(1)' },
    color: 'red;background:url(https://evil.example/x)',
    opacity: 250,
    googleTagId: 'javascript:alert(1)',
    isActive: true,
    botName: '  <img src=x onerror=alert(1)>Aimee  ',
  },
];

/**
 * The bot name of a practice's conversations: its configuration's `aimee_bot_name`, so the bot signs its replies as
 * the panel greets. The create operation names only the practice, so every configuration of a practice carries the
 * same name (test/unit/simulator/staff-names.test.ts holds the seed to that); the first one is taken as it is written.
 */
export const PRACTICE_BOT_NAMES: ReadonlyMap<string, string> = new Map(
  PRACTICES.map((practice) => [
    practice.id,
    CONFIGURATIONS.find((config) => config.practice === practice.id)?.botName ?? 'Aimee',
  ]),
);
