export { kubernetesModule } from './kubernetesModule';
