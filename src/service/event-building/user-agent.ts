/** Browser, OS and device from a User-Agent string (ua-parser-js 1.x, MIT). */
import { UAParser } from 'ua-parser-js';
import type { BrowserDetails } from '../../events/v4-event.js';

// Parsing runs hundreds of regular expressions, and most traffic shares a few hundred UA strings.
const MAX_CACHED = 2000;
const cache = new Map<string, BrowserDetails>();

export function parseUserAgent(userAgent: string): BrowserDetails {
  const hit = cache.get(userAgent);
  if (hit) return { ...hit };
  const { browser, os, device } = new UAParser(userAgent).getResult();
  const details: BrowserDetails = {
    browser_name: browser.name ?? 'Other',
    browser_major_version: browser.major ?? '',
    browser_full_version: browser.version ?? '',
    os: os.name ?? 'Other',
    os_version: os.version ?? '',
    // Desktops carry no device model in their UA: the reference reports them as 'Other'.
    device: device.model ?? 'Other',
  };
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(userAgent, details);
  return { ...details };
}
