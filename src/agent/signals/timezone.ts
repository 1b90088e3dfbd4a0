// Temporal answers at once; Intl's first DateTimeFormat costs 15-50 ms of ICU set-up.
export const timezone = (): string =>
  (globalThis as { Temporal?: { Now: { timeZoneId(): string } } }).Temporal?.Now.timeZoneId() ??
  Intl.DateTimeFormat().resolvedOptions().timeZone;
