/** One bar group of a chart (e.g. one object count), with a value per contender. */
export interface BarGroup {
  readonly label: string;
  readonly values: ReadonlyMap<string, number>;
}

const COLORS = ['#2b6cb0', '#dd6b20', '#718096', '#38a169', '#805ad5'];

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function format(value: number): string {
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toPrecision(3);
}

/** A grouped horizontal-axis bar chart as standalone SVG text. */
export function svgBarChart(title: string, unit: string, series: readonly string[], groups: readonly BarGroup[]): string {
  const barWidth = 36;
  const gap = 28;
  const groupWidth = series.length * barWidth + gap;
  const left = 70;
  const top = 48;
  const height = 240;
  const width = left + groups.length * groupWidth + 20;
  const legendHeight = 24;
  const max = Math.max(1e-9, ...groups.flatMap((g) => [...g.values.values()]));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top + height + 40 + legendHeight}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold">${escape(title)}</text>`,
    `<text x="${left}" y="36" fill="#555">${escape(unit)}</text>`,
    `<line x1="${left - 4}" y1="${top + height}" x2="${width - 10}" y2="${top + height}" stroke="#333"/>`,
  ];
  groups.forEach((group, g) => {
    const x0 = left + g * groupWidth;
    series.forEach((name, s) => {
      const value = group.values.get(name);
      if (value === undefined) return;
      const h = (value / max) * height;
      const x = x0 + s * barWidth;
      out.push(
        `<rect x="${x}" y="${top + height - h}" width="${barWidth - 4}" height="${h}" fill="${COLORS[s % COLORS.length]}"><title>${escape(name)}: ${format(value)}</title></rect>`,
      );
      out.push(
        `<text x="${x + (barWidth - 4) / 2}" y="${top + height - h - 3}" text-anchor="middle" font-size="9">${format(value)}</text>`,
      );
    });
    out.push(
      `<text x="${x0 + (series.length * barWidth) / 2}" y="${top + height + 16}" text-anchor="middle">${escape(group.label)}</text>`,
    );
  });
  series.forEach((name, s) => {
    const x = left + s * 110;
    const y = top + height + 34;
    out.push(`<rect x="${x}" y="${y - 9}" width="10" height="10" fill="${COLORS[s % COLORS.length]}"/>`);
    out.push(`<text x="${x + 14}" y="${y}">${escape(name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
