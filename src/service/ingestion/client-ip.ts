/** The client IP as the service reports and matches it. */

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) is reported as `1.2.3.4`. */
export function normaliseIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}
