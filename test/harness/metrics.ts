// Reads one sample from a gateway's /metrics (Prometheus text format), for tests that assert
// on what a limit or cache counted.

/** The value of `name` with exactly these labels, or undefined when the gateway has no such sample. */
export async function metricValue(gatewayUrl: string, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const text = await (await fetch(new URL('/metrics', gatewayUrl))).text();
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = (m[2] ?? '')
      .split(/,(?=[a-zA-Z_][a-zA-Z0-9_]*=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (got === want) return Number(m[3]);
  }
  return undefined;
}
