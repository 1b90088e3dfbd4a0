/** `--public-url`: an origin, or an origin and the path a site proxies to the service; anything else is refused at start. */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/service/config.js';

describe('the public URL', () => {
  it('keeps an origin, or an origin and a path, without a trailing slash', () => {
    expect(resolveConfig({ publicUrl: 'https://id.example.com' }).publicUrl).toBe('https://id.example.com');
    expect(resolveConfig({ publicUrl: 'https://id.example.com/' }).publicUrl).toBe('https://id.example.com');
    expect(resolveConfig({ publicUrl: 'https://shop.example/tessera/' }).publicUrl).toBe('https://shop.example/tessera');
    expect(resolveConfig({ publicUrl: 'http://Shop.Example:8080/a/b' }).publicUrl).toBe('http://shop.example:8080/a/b');
    expect(resolveConfig({}).publicUrl).toBeUndefined();
  });

  it('refuses what pages could not post to, with a message that names the value', () => {
    expect(() => resolveConfig({ publicUrl: 'id.example.com' })).toThrow(/absolute http or https URL \(got "id\.example\.com"\)/);
    expect(() => resolveConfig({ publicUrl: 'ftp://id.example.com' })).toThrow(/must be http or https/);
    for (const bad of ['https://id.example.com/?x=1', 'https://id.example.com/#top']) {
      expect(() => resolveConfig({ publicUrl: bad }), bad).toThrow(/without a query or fragment/);
    }
    // Without echoing the password.
    expect(() => resolveConfig({ publicUrl: 'https://user:s3cret@id.example.com' })).toThrow(/^public URL must not carry credentials$/);
  });
});
