/** Signs a delivery body for the `FPJS-Event-Signature` header (format: src/events/webhook-signature.ts). */
import { createHmac } from 'node:crypto';
import { formatWebhookSignature } from '../../events/webhook-signature.js';

export function signWebhookBody(body: string, signingKey: string): string {
  return formatWebhookSignature(createHmac('sha256', signingKey).update(body).digest('hex'));
}
