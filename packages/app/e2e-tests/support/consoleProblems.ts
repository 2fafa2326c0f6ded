import { Page } from '@playwright/test';
import { sourceMapsOf } from './sourceMaps';

/**
 * What Backstage's own framework logs by itself in every run of the app, none of it about the product. A message is
 * let through only when it matches one of these AND the code that logged it is a module of `node_modules/@backstage/`
 * (the build's source map of the logging script says so), so the same words logged by our code still fail a test.
 */
const FRAMEWORK_MESSAGES: { text: RegExp; why: string }[] = [
  {
    text: /^The following icons were registered as IconComponent, which is deprecated\./,
    why: "the icons API of @backstage/plugin-app (DefaultIconsApi), at start-up, of icons Backstage's own plugins register",
  },
];

const BACKSTAGE_SOURCE = /\/node_modules\/@backstage\//;

interface Logged {
  kind: 'error' | 'warning' | 'pageerror';
  text: string;
  /** Where it was logged: a script URL and its 0-based line and column. */
  at?: { url: string; line: number; column: number };
}

/** The first frame of a stack in one of the app's scripts (`at f (http://host/static/x.js:1:234)`, 1-based). */
function firstFrame(stack: string | undefined): Logged['at'] {
  const frame = /(https?:\/\/[^\s)]+\.js):(\d+):(\d+)/.exec(stack ?? '');
  return frame
    ? {
        url: frame[1],
        line: Number(frame[2]) - 1,
        column: Number(frame[3]) - 1,
      }
    : undefined;
}

/**
 * Collects the page's console errors and warnings and its uncaught errors from now on. `problems()` lists those not
 * from Backstage's framework (FRAMEWORK_MESSAGES), each with the original source that logged it where the source map
 * says, so a test ends with `expect(await consoleProblems.problems()).toEqual([])`.
 */
export function watchConsole(page: Page) {
  const logged: Logged[] = [];
  page.on('console', message => {
    const kind = message.type();
    if (kind !== 'error' && kind !== 'warning') return;
    const { url, lineNumber, columnNumber } = message.location();
    logged.push({
      kind,
      text: message.text(),
      at: url ? { url, line: lineNumber, column: columnNumber } : undefined,
    });
  });
  page.on('pageerror', error => {
    logged.push({
      kind: 'pageerror',
      text: `${error.name}: ${error.message}`,
      at: firstFrame(error.stack),
    });
  });
  const sourceOf = sourceMapsOf(page.request);

  return {
    async problems(): Promise<string[]> {
      const problems: string[] = [];
      for (const entry of logged) {
        const source = entry.at
          ? await sourceOf(entry.at.url, entry.at.line, entry.at.column)
          : undefined;
        const fromFramework =
          source !== undefined &&
          BACKSTAGE_SOURCE.test(source) &&
          FRAMEWORK_MESSAGES.some(m => m.text.test(entry.text));
        if (fromFramework) continue;
        const where =
          source ??
          (entry.at
            ? `${entry.at.url}:${entry.at.line + 1}:${entry.at.column + 1}`
            : 'unknown');
        problems.push(`${entry.kind}: ${entry.text} (from ${where})`);
      }
      return problems;
    },
  };
}
