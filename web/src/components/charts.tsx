// Charts with Recharts (SVG, React components, maintained). Bar heights need numbers; the text a
// person reads (axis ticks aside) is the exact decimal string through the money formatter, and
// every chart has the same figures as a table beside it.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps } from 'recharts';
import { formatUsd, toChartNumber } from '../money/decimal';

export interface Series {
  /** Field of each row holding the decimal string. */
  field: string;
  label: string;
  color: string;
}

// Any API row: the category and series fields are read by name.
type Row = object;

function ExactTooltip({ active, payload, label, series }: TooltipContentProps<number, string> & { series: Series[] }) {
  if (!active || !payload || payload.length === 0) return null;
  const row = payload[0]!.payload as Record<string, unknown>;
  return (
    <div className="chart-tooltip">
      <strong>{String(label)}</strong>
      {series.map((s) => (
        <div key={s.field}>
          {s.label}: {formatUsd(String(row[s.field] ?? '0'))}
        </div>
      ))}
    </div>
  );
}

/** Bars per category (a day, a model) for one or more decimal-string series. */
export function MoneyBarChart({ title, rows, category, series, height = 260 }: { title: string; rows: Row[]; category: string; series: Series[]; height?: number }) {
  const data = rows.map((row) => {
    const fields = row as Record<string, unknown>;
    return { ...fields, ...Object.fromEntries(series.map((s) => [`__${s.field}`, toChartNumber(String(fields[s.field] ?? '0'))])) };
  });
  return (
    <figure className="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={height}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey={category} tick={{ fontSize: 11 }} minTickGap={12} />
          <YAxis tick={{ fontSize: 11 }} width={56} />
          <Tooltip content={(props) => <ExactTooltip {...(props as TooltipContentProps<number, string>)} series={series} />} />
          <Legend />
          {series.map((s) => (
            <Bar key={s.field} dataKey={`__${s.field}`} name={s.label} fill={s.color} isAnimationActive={false} maxBarSize={48} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
