export { ApplyRecommendationAction } from './ApplyRecommendationAction';
export { DecommissionAction } from './DecommissionAction';
