export * from './allowanceFit';
export * from './teamAllowance';
