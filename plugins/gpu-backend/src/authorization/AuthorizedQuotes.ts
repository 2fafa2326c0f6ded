import { BackstageCredentials } from '@backstage/backend-plugin-api';
import {
  Quote,
  QuoteWithoutTeamFigures,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { FitAndPriceQuotes, QuoteService } from '../services/QuoteService';
import { RecentTeamReadDecisions } from './RecentTeamReadDecisions';

/**
 * Quotes as a caller may see them: everyone signed in gets each option's fit and price; the team's quota, use and
 * budget (and the verdicts they decide) only a caller who may read the team's quota, by the rule of
 * `GET /teams/{team}/quota` (`AuthorizedGovernance.canReadTeam`: `gpu.service.read` on the team) applied to a
 * decision of the policy at most a few seconds old (`RecentTeamReadDecisions`, `QUOTE_DECISION_TTL_MS`), so a burst
 * of quotes from one form asks the permission backend once. Others get `QuoteService.quoteFitAndPrice`.
 */
export class AuthorizedQuotes {
  constructor(
    private readonly options: {
      quotes: QuoteService & FitAndPriceQuotes;
      decisions: RecentTeamReadDecisions;
    },
  ) {}

  /** `request` as checked by `validateServiceRequest` (a known team). */
  async quote(
    credentials: BackstageCredentials,
    request: ServiceRequest,
  ): Promise<Quote | QuoteWithoutTeamFigures> {
    const { quotes, decisions } = this.options;
    return (await decisions.canReadTeam(credentials, request.team))
      ? quotes.quote(request)
      : quotes.quoteFitAndPrice(request);
  }
}
