// URL checks the identity config applies after ${ENV} interpolation, when the schema's
// patterns (which must let `${VAR}` through) can no longer vouch for the value.

/** An absolute http: or https: URL. */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'https:' || protocol === 'http:';
}

/**
 * https, or http to this machine only. Keys and metadata fetched in clear from elsewhere
 * could be swapped in transit (OAuth 2.1 section 1.5 requires TLS between parties).
 */
export function isSecureOrLoopback(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
