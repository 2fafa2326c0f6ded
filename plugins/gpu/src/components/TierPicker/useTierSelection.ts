import {
  CompactQuote,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { useCallback, useEffect, useMemo } from 'react';
import {
  ChoiceOrigin,
  choiceKey,
  sameValue,
  TierChoice,
  tierChoices,
  valueOf,
} from './tierChoices';
import { TierPickerValue } from './types';
import { QuoteDetail } from './useDebouncedQuote';

/** The picker's choice against the latest quote summary, and how to change it. */
export interface TierSelection {
  choices: TierChoice[];
  selected?: TierChoice;
  /** The user picked a row that is not the quote's recommendation (any more). */
  differsFromRecommendation: boolean;
  select(choice: TierChoice): void;
  followRecommendation(): void;
}

/**
 * Keeps the form's value in step with the quote summary. Until the user picks a row the value follows the
 * recommendation; a pick is kept (the value says `chosenBy: 'user'`, so it survives the step unmounting on Back and
 * Next) and only moves to the slice the same tier and pool now take. A value without `chosenBy` came from elsewhere
 * (a default or a draft) and is kept like a pick. The value is written from the row's figures at once, and again
 * with the approval's reasons and the autoscaled pricing once `detail` (the row's full option) has arrived.
 */
export function useTierSelection(options: {
  value: TierPickerValue | undefined;
  summary: CompactQuote | undefined;
  platform: Platform | undefined;
  detail: QuoteDetail | undefined;
  hoursPerMonth: number | undefined;
  onChange: (value: TierPickerValue) => void;
}): TierSelection {
  const { value, summary, platform, detail, hoursPerMonth, onChange } = options;
  const choices = useMemo(
    () => (summary && platform ? tierChoices(summary, platform) : []),
    [summary, platform],
  );
  const selectedKey = value ? choiceKey(value) : undefined;
  const selected = choices.find(c => c.key === selectedKey);
  const userChose = !!value && value.chosenBy !== 'recommendation';
  const recommendedKey = summary?.recommended
    ? choiceKey(summary.recommended)
    : undefined;

  const write = useCallback(
    (choice: TierChoice | undefined, origin: ChoiceOrigin) => {
      if (!summary || hoursPerMonth === undefined || !choice?.option) return;
      if (choice.option.verdict === 'forbidden') return;
      const next = valueOf(
        detail?.key === choice.key ? detail.option : choice.option,
        origin,
        { environment: summary.environment, hoursPerMonth },
      );
      if (!sameValue(value, next)) onChange(next);
    },
    [summary, hoursPerMonth, detail, value, onChange],
  );

  useEffect(() => {
    if (!userChose) {
      write(
        choices.find(c => c.recommended),
        { chosenBy: 'recommendation', recommendedWhenChosen: true },
      );
    } else if (value) {
      // Same tier and pool, but the inputs may have moved it to another slice (e.g. 2 x H100 instead of 1).
      write(selected, {
        chosenBy: 'user',
        recommendedWhenChosen: value.recommendedWhenChosen ?? false,
      });
    }
  }, [userChose, choices, selected, value, write]);

  return {
    choices,
    selected,
    differsFromRecommendation:
      userChose && !!recommendedKey && recommendedKey !== selectedKey,
    select: choice =>
      write(choice, {
        chosenBy: 'user',
        recommendedWhenChosen: choice.recommended,
      }),
    followRecommendation: () =>
      write(
        choices.find(c => c.recommended),
        { chosenBy: 'recommendation', recommendedWhenChosen: true },
      ),
  };
}
