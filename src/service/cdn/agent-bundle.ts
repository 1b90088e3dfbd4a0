/**
 * The CDN builds of the agent (dist/agent/cdn.*.js), read once, and the per-key copies with
 * the placeholders replaced. Pure string work apart from the one file read.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CDN_API_KEY_PLACEHOLDER, CDN_ENDPOINT_PLACEHOLDER } from '../../protocol/cdn.js';

export type BundleFormat = 'esm' | 'iife';

export const BUNDLE_FILES: Record<BundleFormat, string> = { esm: 'cdn.esm.js', iife: 'cdn.iife.js' };

/**
 * A value as it may stand inside a JS string literal of either quote style: JSON escaping,
 * plus the quote, `<` (no `</script>`) and the JS-only line separators escaped.
 */
export function jsStringContent(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/'/g, '\\u0027')
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function bakeBundle(source: string, values: { apiKey: string; endpoint: string }): string {
  return source
    .split(CDN_API_KEY_PLACEHOLDER)
    .join(jsStringContent(values.apiKey))
    .split(CDN_ENDPOINT_PLACEHOLDER)
    .join(jsStringContent(values.endpoint));
}

export interface BakedBundle {
  body: string;
  etag: string;
}

/** Reads each build once (a missing build is looked for again next time: it may be built later). */
export function createBundleCache(agentDir: string, maxBaked = 1000) {
  const sources = new Map<BundleFormat, string>();
  const baked = new Map<string, BakedBundle>();
  return {
    /** The baked bundle, or undefined when dist/agent has no such build. */
    async get(format: BundleFormat, apiKey: string, endpoint: string): Promise<BakedBundle | undefined> {
      const id = `${format}\n${apiKey}\n${endpoint}`;
      const hit = baked.get(id);
      if (hit) return hit;
      let source = sources.get(format);
      if (source === undefined) {
        try {
          source = await readFile(join(agentDir, BUNDLE_FILES[format]), 'utf8');
        } catch {
          return undefined;
        }
        sources.set(format, source);
      }
      const body = bakeBundle(source, { apiKey, endpoint });
      const bundle = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      if (baked.size >= maxBaked) baked.clear();
      baked.set(id, bundle);
      return bundle;
    },
  };
}
