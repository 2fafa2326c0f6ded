import { Quote } from '@gpu-platform/backstage-plugin-gpu-common';
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

/** The picker's choice against the latest quote, and how to change it. */
export interface TierSelection {
  choices: TierChoice[];
  selected?: TierChoice;
  /** The user picked a row that is not the quote's recommendation (any more). */
  differsFromRecommendation: boolean;
  select(choice: TierChoice): void;
  followRecommendation(): void;
}

/**
 * Keeps the form's value in step with the quote. Until the user picks a row the value follows the recommendation;
 * a pick is kept (the value says `chosenBy: 'user'`, so it survives the step unmounting on Back and Next) and only
 * moves to the slice the same tier and pool now take. A value without `chosenBy` came from elsewhere (a default or
 * a draft) and is kept like a pick.
 */
export function useTierSelection(options: {
  value: TierPickerValue | undefined;
  quote: Quote | undefined;
  hoursPerMonth: number | undefined;
  onChange: (value: TierPickerValue) => void;
}): TierSelection {
  const { value, quote, hoursPerMonth, onChange } = options;
  const choices = useMemo(() => (quote ? tierChoices(quote) : []), [quote]);
  const selectedKey = value ? choiceKey(value) : undefined;
  const selected = choices.find(c => c.key === selectedKey);
  const userChose = !!value && value.chosenBy !== 'recommendation';
  const recommendedKey = quote?.recommended
    ? choiceKey(quote.recommended.slice)
    : undefined;

  const write = useCallback(
    (choice: TierChoice | undefined, origin: ChoiceOrigin) => {
      if (!quote || hoursPerMonth === undefined || !choice?.option) return;
      if (choice.option.verdict === 'forbidden') return;
      const next = valueOf(choice.option, origin, {
        environment: quote.environment,
        hoursPerMonth,
      });
      if (!sameValue(value, next)) onChange(next);
    },
    [quote, hoursPerMonth, value, onChange],
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
