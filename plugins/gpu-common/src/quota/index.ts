export * from './allowanceFit';
export * from './teamAllowance';
export * from './quotaLeft';
export * from './poolSubscriptions';
