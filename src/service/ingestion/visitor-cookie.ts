/**
 * The visitor cookie (`--visitor-cookie`): the service also keeps the visitor token in an
 * HttpOnly cookie of its own, set with the answer of `POST /`, and reads it back when a visit
 * brings no token in its body.
 *
 * Why: WebKit's tracking prevention (Safari, and every browser on iOS) deletes what scripts
 * store (localStorage, IndexedDB, cookies written by `document.cookie`) after seven days
 * without a visit; a cookie that the site's own server sets is kept for its whole lifetime.
 * The browser stores and sends it only when the agent talks to the service on the page's own
 * origin (a path of the site proxied to the service, docs/service.md), and Safari caps it at
 * seven days too when the service's address differs from the site's: a same-origin proxy is
 * the deployment this is for. Cross-origin requests carry no cookie (the agent does not send
 * credentials), so the option changes nothing there.
 */
import { parseCookie, stringifySetCookie } from 'cookie';

export const VISITOR_COOKIE_NAME = 'tessera_vid';

/** 400 days: the longest lifetime Chromium keeps (and RFC 6265bis allows) for a cookie. */
export const VISITOR_COOKIE_MAX_AGE_S = 400 * 24 * 3600;

/** The token in a request's Cookie header, or undefined. */
export function visitorCookieToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const value = parseCookie(cookieHeader, { decode: (s) => s })[VISITOR_COOKIE_NAME];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The Set-Cookie value for `token`. No Path: the browser scopes the cookie to the path it
 * posted to (the proxied prefix, when the agent's endpoint ends with a slash), so the site's
 * other requests do not carry it. `secure`: the request came over HTTPS (as the service sees
 * it: behind a proxy, with --trust-proxy and X-Forwarded-Proto).
 */
export function visitorCookieHeader(token: string, secure: boolean): string {
  return stringifySetCookie(VISITOR_COOKIE_NAME, token, {
    maxAge: VISITOR_COOKIE_MAX_AGE_S,
    httpOnly: true,
    sameSite: 'lax',
    secure,
  });
}
