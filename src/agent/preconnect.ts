import { safe } from './safe.js';

/**
 * Lets the browser resolve, connect and (for https) handshake with the first endpoint while the
 * signals are collected. `crossOrigin = 'anonymous'` matches the credential-less CORS request
 * the agent makes, so the request reuses this connection.
 */
export const preconnect = (endpoint: string) =>
  safe(() => {
    const origin = new URL(endpoint, location.href).origin;
    if (origin == location.origin) return;
    const link = document.createElement('link');
    link.rel = 'preconnect';
    link.href = origin;
    link.crossOrigin = 'anonymous';
    document.head.appendChild(link);
  });
