// The relay's upstream timeout and settle window sized for the simulator, which stores in milliseconds. A send whose
// outcome is unknown (a 5xx, a dropped answer) has its retry wait out the settle window before the relay reads back;
// the defaults are made for a real service, so a test whose sends meet such answers spends most of its time in those
// windows. These take the same read-back path, sooner. SEND_SETTLE_MS may be no less than twice UPSTREAM_TIMEOUT_MS
// plus a second (docs/settings.md).
export const SIMULATOR_SETTLE_WINDOWS = { UPSTREAM_TIMEOUT_MS: '2000', SEND_SETTLE_MS: '5000' } as const;
