/** Values by unix time, as far as the step figures read them: a `Map<number, number>` is one, {@link StepValues} too. */
export interface TimeValues {
  get(t: number): number | undefined;
  readonly size: number;
  forEach(callback: (value: number, t: number) => void): void;
}

/**
 * One series' values at the steps of a range query's grid, by unix time: what a `Map<number, number>` keyed by time
 * holds, kept in an array indexed by step. Unix times are beyond the small integers V8 keeps unboxed, so a map keyed
 * by them allocates a number per key and hashes doubles, and an overview of thousands of services sets and reads
 * millions. A time off the grid (which a range query's answer never has) is kept aside in a map. `forEach` goes in
 * time order, the grid's steps first.
 */
export class StepValues implements TimeValues {
  private readonly atStep: Float64Array;
  private readonly isSet: Uint8Array;
  private count = 0;
  private offGrid?: Map<number, number>;

  constructor(
    private readonly grid: { start: number; step: number; length: number },
  ) {
    this.atStep = new Float64Array(grid.length);
    this.isSet = new Uint8Array(grid.length);
  }

  /** The step index of `t`, or -1 when `t` is not one of the grid's times. */
  private indexOf(t: number): number {
    const i = (t - this.grid.start) / this.grid.step;
    return Number.isInteger(i) && i >= 0 && i < this.atStep.length ? i : -1;
  }

  set(t: number, value: number): this {
    const i = this.indexOf(t);
    if (i < 0) {
      this.offGrid ??= new Map();
      if (!this.offGrid.has(t)) this.count += 1;
      this.offGrid.set(t, value);
      return this;
    }
    if (this.isSet[i] === 0) {
      this.isSet[i] = 1;
      this.count += 1;
    }
    this.atStep[i] = value;
    return this;
  }

  get(t: number): number | undefined {
    const i = this.indexOf(t);
    if (i < 0) return this.offGrid?.get(t);
    return this.isSet[i] === 1 ? this.atStep[i] : undefined;
  }

  get size(): number {
    return this.count;
  }

  forEach(callback: (value: number, t: number) => void): void {
    const { start, step } = this.grid;
    for (let i = 0; i < this.atStep.length; i++) {
      if (this.isSet[i] === 1) callback(this.atStep[i], start + i * step);
    }
    this.offGrid?.forEach((value, t) => callback(value, t));
  }
}
