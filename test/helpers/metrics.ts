// Reads Prometheus' text format: the value of one sample, found by its name and exact label set.

export type Labels = Record<string, string>;

export interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Labels = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key as string] = value as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

const sameLabels = (a: Labels, b: Labels): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);

/** The value of `name` with exactly `labels`, or undefined when there is no such sample. */
export function sample(text: string, name: string, labels: Labels = {}): number | undefined {
  return parseMetrics(text).find((s) => s.name === name && sameLabels(s.labels, labels))?.value;
}

/** Every sample of `name`, label sets joined as `k=v,k=v` (sorted), for whole-set assertions. */
export function samplesOf(text: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of parseMetrics(text)) {
    if (s.name !== name) continue;
    const key = Object.entries(s.labels)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    out[key] = s.value;
  }
  return out;
}
