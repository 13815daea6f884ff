/**
 * The Prometheus text exposition format (version 0.0.4), written by hand:
 * `# HELP` and `# TYPE` once per family, then one `name{labels} value` line
 * per sample. Label values escape `\`, `"` and newlines; HELP text escapes
 * `\` and newlines; values are Go-style floats (`+Inf`, `-Inf`, `NaN`).
 */
export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Labels = Readonly<Record<string, string | number>>;
type MetricType = 'counter' | 'gauge' | 'histogram';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const escapeLabelValue = (value: string) =>
  value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

function labelText(labels: Labels | undefined): string {
  if (!labels) return '';
  let text = '';
  for (const key in labels) {
    if (!LABEL.test(key)) throw new Error(`bad label name "${key}"`);
    text += `${text ? ',' : ''}${key}="${escapeLabelValue(String(labels[key]))}"`;
  }
  return text ? `{${text}}` : '';
}

export class Exposition {
  #text = '';
  readonly #families = new Set<string>();

  /** Starts a family; each name once. */
  family(name: string, type: MetricType, help: string): this {
    if (!NAME.test(name)) throw new Error(`bad metric name "${name}"`);
    if (this.#families.has(name)) throw new Error(`metric "${name}" written twice`);
    this.#families.add(name);
    this.#text += `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;
    return this;
  }

  sample(name: string, labels: Labels | undefined, value: number): this {
    this.#text += `${name}${labelText(labels)} ${formatValue(value)}\n`;
    return this;
  }

  /**
   * A histogram's samples from per-bucket (not cumulative) counts; the last
   * count is the overflow beyond the largest bound.
   */
  histogram(
    name: string,
    labels: Labels,
    bounds: readonly number[],
    counts: ArrayLike<number>,
    sum: number,
  ): this {
    let cumulative = 0;
    for (let i = 0; i < bounds.length; i++) {
      cumulative += counts[i]!;
      this.sample(`${name}_bucket`, { ...labels, le: formatValue(bounds[i]!) }, cumulative);
    }
    cumulative += counts[bounds.length]!;
    this.sample(`${name}_bucket`, { ...labels, le: '+Inf' }, cumulative);
    this.sample(`${name}_sum`, labels, sum);
    return this.sample(`${name}_count`, labels, cumulative);
  }

  text(): string {
    return this.#text;
  }
}
