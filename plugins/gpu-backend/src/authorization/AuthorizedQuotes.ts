import { BackstageCredentials } from '@backstage/backend-plugin-api';
import {
  Quote,
  QuoteWithoutTeamFigures,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { FitAndPriceQuotes, QuoteService } from '../services/QuoteService';
import { AuthorizedGovernance } from './AuthorizedGovernance';

/**
 * Quotes as a caller may see them: everyone signed in gets each option's fit and price; the team's quota, use and
 * budget (and the verdicts they decide) only a caller who may read the team's quota, by the same decision as
 * `GET /teams/{team}/quota` (`AuthorizedGovernance.canReadTeam`). Others get `QuoteService.quoteFitAndPrice`.
 */
export class AuthorizedQuotes {
  constructor(
    private readonly options: {
      quotes: QuoteService & FitAndPriceQuotes;
      governance: AuthorizedGovernance;
    },
  ) {}

  /** `request` as checked by `validateServiceRequest` (a known team). */
  async quote(
    credentials: BackstageCredentials,
    request: ServiceRequest,
  ): Promise<Quote | QuoteWithoutTeamFigures> {
    const { quotes, governance } = this.options;
    return (await governance.canReadTeam(credentials, request.team))
      ? quotes.quote(request)
      : quotes.quoteFitAndPrice(request);
  }
}
