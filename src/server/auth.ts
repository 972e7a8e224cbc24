import { timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented `Authorization` value with `Bearer <token>` in constant time.
 *
 * @param header the Authorization header (or WebSocket payload `authorization`), if any
 * @returns true when no token is configured, or when the header carries it
 */
export function isAuthorized(token: string | null, header: unknown): boolean {
  if (token === null) return true;
  if (typeof header !== 'string') return false;
  // The scheme name is case-insensitive (RFC 7235 §2.1); the token is compared exactly.
  const match = /^bearer +(.*)$/i.exec(header);
  if (match === null) return false;
  const expected = Buffer.from(token, 'utf8');
  const given = Buffer.from(match[1] as string, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
