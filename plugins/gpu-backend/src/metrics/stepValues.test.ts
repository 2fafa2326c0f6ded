import { StepValues } from './stepValues';

describe('StepValues', () => {
  const grid = { start: 1_764_000_000, step: 300, length: 4 };

  it('holds values by the grid times as a map keyed by time would, in time order', () => {
    const values = new StepValues(grid);
    const map = new Map<number, number>();
    for (const [t, v] of [
      [grid.start + 600, 2.5],
      [grid.start, 0],
      [grid.start + 600, 3.5],
      [grid.start + 900, -1],
    ]) {
      values.set(t, v);
      map.set(t, v);
    }
    expect(values.size).toBe(map.size);
    for (const t of [grid.start, grid.start + 300, grid.start + 600]) {
      expect(values.get(t)).toBe(map.get(t));
    }
    const seen: Array<[number, number]> = [];
    values.forEach((v, t) => seen.push([t, v]));
    expect(seen).toEqual([...map].sort((a, b) => a[0] - b[0]));
  });

  it('keeps a time off the grid (between steps, before, after) aside, never on a step', () => {
    const values = new StepValues(grid);
    values.set(grid.start + 150, 1);
    values.set(grid.start - 300, 2);
    values.set(grid.start + 1200, 3);
    values.set(grid.start + 300, 4);
    expect(values.size).toBe(4);
    expect(values.get(grid.start + 150)).toBe(1);
    expect(values.get(grid.start)).toBeUndefined();
    expect(values.get(grid.start - 300)).toBe(2);
    expect(values.get(grid.start + 1200)).toBe(3);
    const seen: number[] = [];
    values.forEach((_, t) => seen.push(t - grid.start));
    expect(seen).toEqual([300, 150, -300, 1200]);
    values.set(grid.start + 150, 5);
    expect(values.size).toBe(4);
    expect(values.get(grid.start + 150)).toBe(5);
  });
});
