import type { SealedResult } from './types.js';

/** Wraps the service's base64 sealed result in the object the contract describes (or null). */
export const sealedResult = (b64: string | null | undefined): SealedResult | null => {
  if (!b64) return null;
  const bytes = () => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const text = () => b64;
  return { base64: text, byteArray: bytes, blob: () => new Blob([bytes()]), toString: text, toJSON: text };
};
