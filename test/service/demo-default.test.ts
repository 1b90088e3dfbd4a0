/** The demo routes list recent events without a key: on by default only on a loopback host. */
import { describe, expect, it } from 'vitest';
import { serviceConfigFrom } from '../../src/service/cli/options.js';
import { isLoopbackHost, resolveConfig } from '../../src/service/config.js';

describe('demo default', () => {
  it('is on for loopback hosts and off for any other interface', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) {
      expect(isLoopbackHost(host), host).toBe(true);
      expect(resolveConfig({ host }).demo, host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.1.2.3', '192.168.0.7', 'fe80::1', 'example.com', '']) {
      expect(isLoopbackHost(host), host).toBe(false);
      expect(resolveConfig({ host }).demo, host).toBe(false);
    }
    expect(resolveConfig({}).demo).toBe(true); // the default host is 127.0.0.1
  });

  it('--demo and --no-demo (and their variables) override the host rule', () => {
    expect(resolveConfig({ host: '0.0.0.0', demo: true }).demo).toBe(true);
    expect(resolveConfig({ host: '127.0.0.1', demo: false }).demo).toBe(false);
    expect(serviceConfigFrom({ demo: true }, {}).demo).toBe(true);
    expect(serviceConfigFrom({ 'no-demo': true }, {}).demo).toBe(false);
    expect(serviceConfigFrom({}, { TESSERA_DEMO: '1' }).demo).toBe(true);
    expect(serviceConfigFrom({}, { TESSERA_NO_DEMO: 'yes' }).demo).toBe(false);
    expect(serviceConfigFrom({}, { TESSERA_NO_DEMO: 'false' }).demo).toBeUndefined();
    expect(serviceConfigFrom({}, {}).demo).toBeUndefined();
    expect(() => serviceConfigFrom({ demo: true, 'no-demo': true }, {})).toThrow(/contradict/);
  });
});
