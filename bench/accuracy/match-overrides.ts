/**
 * `--match name=value` of run.ts: runs the benchmark with a matcher tunable changed (e.g. the
 * prior for a new browser, `newBits`), to measure where another setting would put the
 * trade-off between re-identification and false merges. The service runs in this process, so
 * changing the exported MATCH object changes its decisions.
 */
export function applyMatchOverrides(match: Record<string, number>, overrides: readonly string[]): string[] {
  const applied: string[] = [];
  for (const override of overrides) {
    const [name, text, ...rest] = override.split('=');
    const value = Number(text);
    if (!name || text === undefined || rest.length > 0 || text.trim() === '' || !Number.isFinite(value)) {
      throw new Error(`--match ${override}: expected name=number, e.g. newBits=7`);
    }
    if (!Object.hasOwn(match, name)) throw new Error(`--match ${override}: no tunable "${name}" (known: ${Object.keys(match).join(', ')})`);
    match[name] = value;
    applied.push(`${name}=${value}`);
  }
  return applied;
}
