/**
 * Every migration, in order, as a static provider for Kysely's Migrator (no file-system
 * scanning, so the compiled service and the tests run the same list). Each owner adds its line.
 */
import type { Migration, MigrationProvider } from 'kysely';
import * as core from './001-core.js';
import * as identification from './002-identification.js';
import * as serverApi from './003-server-api.js';
import * as eventIndexes from './004-event-indexes.js';
import * as coveringVisitorIndex from './005-covering-visitor-index.js';
import * as managementApi from './006-management-api.js';
import * as encryptionKeys from './007-encryption-keys.js';
import * as webhooks from './008-webhooks.js';
import * as searchColumns from './009-search-columns.js';
import * as deliveryEventIndex from './010-delivery-event-index.js';
import * as cacheGeneration from './011-cache-generation.js';
import * as partitionedEvents from './012-partitioned-events.js';
import * as visitorLinks from './013-visitor-links.js';
import * as deliveryPayloads from './014-delivery-payloads.js';
import * as sqliteTimeIndex from './015-sqlite-time-index.js';
import * as lz4EventPayloads from './016-lz4-event-payloads.js';
import * as visitorKeysByVisitor from './017-visitor-keys-by-visitor.js';

export const migrations: Record<string, Migration> = {
  '001-core': core,
  '002-identification': identification,
  '003-server-api': serverApi,
  '004-event-indexes': eventIndexes,
  '005-covering-visitor-index': coveringVisitorIndex,
  '006-management-api': managementApi,
  '007-encryption-keys': encryptionKeys,
  '008-webhooks': webhooks,
  '009-search-columns': searchColumns,
  '010-delivery-event-index': deliveryEventIndex,
  '011-cache-generation': cacheGeneration,
  '012-partitioned-events': partitionedEvents,
  '013-visitor-links': visitorLinks,
  '014-delivery-payloads': deliveryPayloads,
  '015-sqlite-time-index': sqliteTimeIndex,
  '016-lz4-event-payloads': lz4EventPayloads,
  '017-visitor-keys-by-visitor': visitorKeysByVisitor,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
