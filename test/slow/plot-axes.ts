/**
 * What a uPlot chart drew, read in the browser: uPlot draws axis values and
 * labels on its canvas, so every text a page's canvases draw is recorded as
 * it is drawn (an init script of the test's browser context, never a hook
 * of the page), with where it landed; the axes are the `.u-axis` boxes
 * uPlot lays out, the legend its `.u-marker` swatches.
 */
import type { BrowserContext, Page } from 'playwright-core';

/** One text drawn on a canvas: its extent along the baseline, in CSS pixels of the canvas. */
export interface DrawnText {
  text: string;
  left: number;
  right: number;
  y: number;
  /** Drawn turned (an y axis's label), not level. */
  turned: boolean;
}

/** One axis box of a chart, in CSS pixels of its canvas. */
export interface AxisBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface DrawnChart {
  width: number;
  /** The y axes (taller than wide), left to right. */
  yAxes: AxisBox[];
  texts: DrawnText[];
  /** Each series' legend label and swatch colour, in series order. */
  legend: { label: string; colour: string }[];
}

interface Recorded {
  canvas: HTMLCanvasElement;
  text: string;
  /** Both ends of the text's baseline, in canvas pixels. */
  ends: [number, number, number, number];
}

/**
 * Runs in every page of the context before its own script. Clearing a
 * whole canvas (uPlot does before each drawing) forgets what it showed.
 */
function recordCanvasText() {
  let drawn: Recorded[] = [];
  const page = window as unknown as { drawnText: () => Recorded[] };
  page.drawnText = () => drawn;
  const { clearRect, fillText } = CanvasRenderingContext2D.prototype;
  CanvasRenderingContext2D.prototype.clearRect = function (x, y, width, height) {
    const { canvas } = this;
    if (x <= 0 && y <= 0 && width >= canvas.width && height >= canvas.height) {
      drawn = drawn.filter((entry) => entry.canvas !== canvas);
    }
    clearRect.call(this, x, y, width, height);
  };
  CanvasRenderingContext2D.prototype.fillText = function (text, x, y, maxWidth) {
    const width = this.measureText(text).width;
    const align = this.textAlign;
    const start =
      align === 'right' || align === 'end' ? x - width : align === 'center' ? x - width / 2 : x;
    const m = this.getTransform();
    const at = (px: number) => [m.a * px + m.c * y + m.e, m.b * px + m.d * y + m.f] as const;
    drawn.push({ canvas: this.canvas, text, ends: [...at(start), ...at(start + width)] });
    if (maxWidth === undefined) fillText.call(this, text, x, y);
    else fillText.call(this, text, x, y, maxWidth);
  };
}

/** Records the texts drawn on canvases in every page of `context` from now on. */
export const recordDrawnText = (context: BrowserContext) => context.addInitScript(recordCanvasText);

/** The chart in `selector` (its canvas, axes and legend) as last drawn. */
export function drawnChart(page: Page, selector: string): Promise<DrawnChart> {
  return page.evaluate((selector) => {
    const root = document.querySelector(selector)!;
    const canvas = root.querySelector('canvas')!;
    const frame = canvas.getBoundingClientRect();
    const scale = canvas.width / frame.width;
    const recorded = (window as unknown as { drawnText: () => Recorded[] }).drawnText();
    const texts = recorded
      .filter((entry) => entry.canvas === canvas)
      .map(({ text, ends: [x1, y1, x2, y2] }) => ({
        text,
        left: Math.min(x1, x2) / scale,
        right: Math.max(x1, x2) / scale,
        y: Math.min(y1, y2) / scale,
        turned: Math.abs(y1 - y2) > Math.abs(x1 - x2),
      }));
    const yAxes = [...root.querySelectorAll<HTMLElement>('.u-axis')]
      .map((axis) => axis.getBoundingClientRect())
      .filter((box) => box.height > box.width)
      .map((box) => ({
        left: box.left - frame.left,
        right: box.right - frame.left,
        top: box.top - frame.top,
        bottom: box.bottom - frame.top,
      }))
      .sort((a, b) => a.left - b.left);
    const legend = [...root.querySelectorAll('.u-legend .u-series')].slice(1).map((row) => ({
      label: row.querySelector('.u-label')?.textContent ?? '',
      colour: getComputedStyle(row.querySelector('.u-marker')!).borderTopColor,
    }));
    return { width: frame.width, yAxes, texts, legend };
  }, selector);
}

/** The level texts drawn within an axis's box: its values. */
export const valuesOf = (chart: DrawnChart, axis: AxisBox): DrawnText[] =>
  chart.texts.filter(
    (text) =>
      !text.turned &&
      text.y >= axis.top - 1 &&
      text.y <= axis.bottom + 12 &&
      text.right > axis.left &&
      text.left < axis.right,
  );
