export { GovernancePage } from './GovernancePage';
