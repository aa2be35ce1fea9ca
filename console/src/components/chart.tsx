import { useId, useState } from "preact/hooks";

/** One line of a chart: its name (the legend's) and its points `[t, value]`, `t` in epoch seconds, oldest first. */
export interface ChartSeries {
  name: string;
  points: readonly (readonly [number, number])[];
}

/** Colours are classes of the stylesheet (`series-0` to `series-7`): the CSP allows no inline style. */
const COLOURS = 8;

/** The drawing's own units, about the pixels of a chart in one column of the page (text stays legible). */
const WIDTH = 420;
const HEIGHT = 210;
const LEFT = 50;
const RIGHT = 12;
const TOP = 12;
const BOTTOM = 28;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

/**
 * A line chart drawn as SVG, with time along the bottom (`from` to `to`, epoch seconds) and values
 * up the side from zero. A gap longer than `gapAfter` seconds between two points breaks the line (a
 * lone point is drawn as a dot). Screen readers get the title and a summary in words; the data
 * itself is one click away as a table.
 */
export function LineChart(props: {
  title: string;
  series: readonly ChartSeries[];
  from: number;
  to: number;
  /** What the values count (`calls/s`, `ms`), after each number in words and up the side. */
  unit: string;
  gapAfter?: number;
  format?: (value: number) => string;
}) {
  const id = useId();
  const format = props.format ?? formatNumber;
  const span = Math.max(props.to - props.from, 1);
  const peak = Math.max(0, ...props.series.flatMap((line) => line.points.map(([, value]) => value)));
  const yTicks = niceTicks(peak);
  const top = yTicks[yTicks.length - 1] ?? 1;
  const x = (t: number) => LEFT + ((t - props.from) / span) * PLOT_W;
  const y = (value: number) => TOP + PLOT_H - (value / top) * PLOT_H;
  const summary = summarize(props.series, props.unit, format);
  return (
    <figure class="chart">
      <figcaption id={`${id}-title`}>{props.title}</figcaption>
      <svg
        class="chart-svg"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-summary`}
      >
        <title>{props.title}</title>
        {yTicks.map((tick) => (
          <g key={`y${tick}`}>
            <line class="chart-grid" x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} />
            <text class="chart-tick" x={LEFT - 6} y={y(tick) + 4} text-anchor="end">
              {format(tick)}
            </text>
          </g>
        ))}
        {timeTicks(props.from, props.to).map((t) => (
          <g key={`x${t}`}>
            <line class="chart-axis" x1={x(t)} x2={x(t)} y1={TOP + PLOT_H} y2={TOP + PLOT_H + 4} />
            <text class="chart-tick" x={x(t)} y={HEIGHT - 8} text-anchor="middle">
              {clock(t, span)}
            </text>
          </g>
        ))}
        <line class="chart-axis" x1={LEFT} x2={LEFT} y1={TOP} y2={TOP + PLOT_H} />
        <line class="chart-axis" x1={LEFT} x2={WIDTH - RIGHT} y1={TOP + PLOT_H} y2={TOP + PLOT_H} />
        <text
          class="chart-unit"
          x={12}
          y={TOP + PLOT_H / 2}
          text-anchor="middle"
          transform={`rotate(-90 12 ${TOP + PLOT_H / 2})`}
        >
          {props.unit}
        </text>
        {props.series.map((line, index) =>
          segments(line.points, props.gapAfter).map((segment, part) =>
            segment.length === 1 ? (
              <circle
                key={`${line.name}-${part}`}
                class={`chart-dot series-${index % COLOURS}`}
                cx={x(segment[0]?.[0] ?? 0)}
                cy={y(segment[0]?.[1] ?? 0)}
                r={3}
              />
            ) : (
              <path
                key={`${line.name}-${part}`}
                class={`chart-line series-${index % COLOURS}`}
                d={segment
                  .map(([t, value], n) => `${n === 0 ? "M" : "L"}${x(t).toFixed(1)},${y(value).toFixed(1)}`)
                  .join("")}
              />
            ),
          ),
        )}
      </svg>
      {props.series.length > 1 && (
        <ul class="chart-legend">
          {props.series.map((line, index) => (
            <li key={line.name}>
              <span class={`swatch series-${index % COLOURS}`} aria-hidden="true" />
              {line.name}
            </li>
          ))}
        </ul>
      )}
      <p id={`${id}-summary`} class="chart-summary">
        {summary}
      </p>
      <DataTable series={props.series} unit={props.unit} format={format} />
    </figure>
  );
}

/** The chart's numbers as a table, built only once opened (an hour of 1 s samples is long). */
function DataTable(props: {
  series: readonly ChartSeries[];
  unit: string;
  format: (value: number) => string;
}) {
  const [open, setOpen] = useState(false);
  if (props.series.length === 0) return null;
  const times = [...new Set(props.series.flatMap((line) => line.points.map(([t]) => t)))].sort(
    (a, b) => a - b,
  );
  const values = props.series.map((line) => new Map(line.points.map(([t, value]) => [t, value])));
  return (
    <details
      class="chart-data"
      onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>Data as a table</summary>
      {open && (
        <div class="table-wrap chart-table">
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                {props.series.map((line) => (
                  <th scope="col" key={line.name}>
                    {line.name} ({props.unit})
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {times.map((t) => (
                <tr key={t}>
                  <th scope="row">{clock(t, 0)}</th>
                  {values.map((byTime, index) => {
                    const value = byTime.get(t);
                    return (
                      <td key={props.series[index]?.name}>
                        {value === undefined ? "—" : props.format(value)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}

/** The points cut where two follow each other after more than `gapAfter` seconds. */
function segments(
  points: readonly (readonly [number, number])[],
  gapAfter: number | undefined,
): (readonly [number, number])[][] {
  const parts: (readonly [number, number])[][] = [];
  let current: (readonly [number, number])[] = [];
  let last: number | null = null;
  for (const point of points) {
    if (last !== null && gapAfter !== undefined && point[0] - last > gapAfter) {
      parts.push(current);
      current = [];
    }
    current.push(point);
    last = point[0];
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

/** In words: each line's latest value and its peak. */
function summarize(series: readonly ChartSeries[], unit: string, format: (value: number) => string): string {
  if (series.length === 0) return "No samples in this window.";
  return series
    .map((line) => {
      const latest = line.points[line.points.length - 1]?.[1] ?? 0;
      const peak = Math.max(0, ...line.points.map(([, value]) => value));
      return `${line.name}: latest ${format(latest)} ${unit}, peak ${format(peak)} ${unit}`;
    })
    .join("; ")
    .concat(".");
}

/** Zero and three or four round steps up to at least `peak`. */
export function niceTicks(peak: number): number[] {
  if (!(peak > 0)) return [0, 1];
  const rough = peak / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= rough) ?? 10) * magnitude;
  const ticks: number[] = [];
  for (let tick = 0; tick < peak + step / 2; tick += step) ticks.push(Number(tick.toPrecision(12)));
  if ((ticks[ticks.length - 1] ?? 0) < peak) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

/** Times on round minutes (or seconds, for a short window) between `from` and `to`, at most five. */
function timeTicks(from: number, to: number): number[] {
  const span = to - from;
  if (!(span > 0)) return [];
  const steps = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600];
  const step = steps.find((candidate) => span / candidate <= 5) ?? 43200;
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** Local time of day: hours and minutes, with seconds for a window under five minutes (0: always). */
function clock(t: number, span: number): string {
  return new Date(t * 1000).toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    ...(span < 300 && { second: "2-digit" }),
  });
}

/** A number short enough for an axis: `0.25`, `12`, `1.5k`. */
export function formatNumber(value: number): string {
  if (value >= 10_000) return `${(value / 1000).toFixed(0)}k`;
  if (value >= 1000) return `${(value / 1000).toFixed(1)}k`;
  if (value >= 100 || Number.isInteger(value)) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return String(Number(value.toPrecision(2)));
}
