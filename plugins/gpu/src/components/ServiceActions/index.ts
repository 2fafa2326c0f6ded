export { ApplyRecommendationAction } from './ApplyRecommendationAction';
export { DecommissionAction } from './DecommissionAction';
export { ChangeServiceAction } from './ChangeServiceAction';
