/**
 * What the console's and the account page's plots (uPlot) share: y axes as
 * wide as their widest value, and one colour per series, never two alike.
 */
import type uPlot from 'uplot';

/** The font of axis values; the axes are sized by measuring their values in it. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
/** uPlot's tick length and gap between tick and value (its defaults), and room to spare. */
const TICK = 10;
const GAP = 5;
const SPARE = 6;

let measurer: CanvasRenderingContext2D | null = null;

function widestValue(values: readonly string[] | null): number {
  measurer ??= document.createElement('canvas').getContext('2d');
  if (!measurer || !values) return 0;
  measurer.font = AXIS_FONT;
  return Math.max(0, ...values.map((value) => measurer!.measureText(value).width));
}

/**
 * A y axis sized to its values: uPlot's fixed 50 px cut "10,000" to
 * "0,000" at the plot's edge. uPlot calls `size` again with the values it
 * will draw until the size stays the same.
 */
export function yAxis(options: uPlot.Axis = {}): uPlot.Axis {
  return {
    font: AXIS_FONT,
    size: (_plot, values) => Math.ceil(TICK + GAP + SPARE + Math.max(24, widestValue(values))),
    ...options,
  };
}

/**
 * Colours with at least 3:1 contrast on white (WCAG non-text contrast),
 * told apart by hue.
 */
const PALETTE = [
  '#1f5fa8',
  '#b3261e',
  '#1f7a4d',
  '#8a5100',
  '#5b3fa0',
  '#00695c',
  '#4f5663',
  '#c2185b',
  '#6b6b00',
];

/**
 * `count` different colours: the palette, or past its length hues spread
 * evenly around the wheel, dark enough for 3:1 on white.
 */
export function distinctColours(count: number): string[] {
  if (count <= PALETTE.length) return PALETTE.slice(0, count);
  return Array.from({ length: count }, (_, i) => `hsl(${Math.round((i * 360) / count)} 75% 30%)`);
}
