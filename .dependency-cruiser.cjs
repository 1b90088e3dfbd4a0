// The allowed dependency directions of the source tree (ARCHITECTURE.md draws the same picture).
// Checked by `npm run lint:deps` inside `npm test`; a violation fails the test run.
//
//   src/agent  -> src/protocol                 (browser code: nothing of the service or client)
//   src/server -> src/events, src/protocol     (the ./server client: nothing of the service)
//   src/events -> src/protocol
//   src/service:
//     entry (index, app, cli, bootstrap, jobs, cluster-rate-limits, config, ...) -> anything below
//       routes (http, ingestion, server-api, management-api, cdn, demo, ops)
//         -> domain (identification, event-building, filtering, sealing, webhooks, scheduling)
//           -> store (every SQL statement, table types, migrations)
//             -> types of src/events and src/protocol only
//   Arrows may skip a layer (a route may call the store; the domain may use the store's types,
//   as identification/decide-identification.ts does); they never point up.
//   Top-level helpers (context, logger, config, rate-limiter, package-root) sit beside the entry
//   but may be used by routes and (context, logger, config) by the domain.
//   The service may import src/protocol and src/events only, never src/agent or src/server.
//   Every folder under src/service/ belongs to one layer; a new folder must be added above.
const ROUTES = '^src/service/(http|ingestion|server-api|management-api|cdn|demo|ops)/';
const DOMAIN = '^src/service/(identification|event-building|filtering|sealing|webhooks|scheduling)/';
const STORE = '^src/service/store/';
const SERVICE_ENTRY = '^src/service/[^/]+[.]ts$|^src/service/(cli|jobs|cluster-rate-limits)/';
const SHARED = '^src/(events|protocol)/';

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'agent-is-self-contained',
      comment: 'The browser agent ships alone: it may use the wire protocol, nothing else of ours.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: '^src/', pathNot: '^src/(agent|protocol)/' },
    },
    {
      name: 'client-imports-no-service',
      comment: 'The ./server client is dependency-free and shares only wire types and pure helpers.',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/', pathNot: '^src/(server|events|protocol)/' },
    },
    {
      name: 'shared-wire-code-stands-alone',
      severity: 'error',
      from: { path: '^src/(events|protocol)/' },
      to: { path: '^src/', pathNot: '^src/(events|protocol)/' },
    },
    {
      name: 'service-uses-only-shared-wire-code',
      comment: 'The service may import src/protocol and src/events, never the agent or the client.',
      severity: 'error',
      from: { path: '^src/service/' },
      to: { path: '^src/(agent|server)/' },
    },
    {
      name: 'store-depends-on-nothing-of-ours',
      comment: 'The store sits at the bottom: besides itself it may use only shared wire types.',
      severity: 'error',
      from: { path: STORE },
      to: { path: '^src/', pathNot: `${STORE}|${SHARED}` },
    },
    {
      name: 'store-uses-only-wire-types',
      comment: 'From src/events and src/protocol the store takes types, never code.',
      severity: 'error',
      from: { path: STORE },
      to: { path: SHARED, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'service-folder-has-a-layer',
      comment: 'A folder under src/service/ that no layer names is unchecked: add it to ROUTES, DOMAIN or SERVICE_ENTRY.',
      severity: 'error',
      from: { path: '^src/service/[^/]+/', pathNot: `${ROUTES}|${DOMAIN}|${STORE}|${SERVICE_ENTRY}` },
      to: {},
    },
    {
      name: 'domain-does-not-reach-up',
      comment: 'Identification, event building, filtering... call the store, never routes or the app.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { path: `${ROUTES}|${SERVICE_ENTRY}`, pathNot: '^src/service/(context|logger|config)[.]ts$' },
    },
    {
      name: 'routes-do-not-reach-the-entry',
      severity: 'error',
      from: { path: ROUTES },
      to: { path: SERVICE_ENTRY, pathNot: '^src/service/(context|logger|config|rate-limiter|package-root)[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
