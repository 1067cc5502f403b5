// JSON Schema of an HTTP(S) URL in the gateway config. The YAML is validated before ${ENV}
// interpolation, so a value starting with `${` passes here; the interpolated value is checked
// again by whoever reads it (check-config.ts, identity-config.ts, upstream-credentials-config.ts).

export const HTTP_URL_PATTERN = '^(https?://|\\$\\{)';

export const HTTP_URL_SCHEMA = {
  type: 'string',
  pattern: HTTP_URL_PATTERN,
  errorMessage: 'expected an http:// or https:// URL',
};
