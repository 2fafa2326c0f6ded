export { gpuPlugin as default } from './plugin';
