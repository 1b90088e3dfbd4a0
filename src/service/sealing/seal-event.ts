/**
 * The `sealed_result` of an identification response: the v4 event, exactly as the Server API
 * returns it for that event_id, sealed with the environment's enabled encryption key; null
 * when the environment has none.
 */
import { sealEventJson } from '../../events/sealed-result.js';
import { findSealingKeyCached } from '../store/encryption-keys.js';
import { requireMasterKey, type SealingContext } from './encryption-keys.js';
import { decryptKeyMaterial } from './key-material.js';

/**
 * `eventJson` is the event's stored payload (store/events.ts `eventPayload`), so that unsealing
 * gives the Server API's body. Fails (a missing or wrong master key) before anything is stored:
 * ingestion seals first, then writes.
 */
export async function sealedResultFor(ctx: SealingContext, environmentId: string, eventJson: string): Promise<string | null> {
  const key = await findSealingKeyCached(ctx.store, environmentId);
  if (!key) return null;
  const token = decryptKeyMaterial(requireMasterKey(ctx), key.id, key.current_key);
  const sealed = await sealEventJson(eventJson, Buffer.from(token, 'base64'));
  return Buffer.from(sealed).toString('base64');
}
