/** WCAG relative luminance of `rgb(r, g, b)`. */
function luminance(rgb: string): number {
  const [r, g, b] = rgb
    .match(/\d+/g)!
    .slice(0, 3)
    .map(v => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast of a colour (`rgb(...)`) on white. */
export function contrastOnWhite(rgb: string): number {
  return 1.05 / (luminance(rgb) + 0.05);
}

/**
 * Contrast on white of an element's computed text colour; the theme's error.main (`rgb(244, 67, 54)`, 3.7:1), which
 * `Typography color="error"` gives, is below WCAG AA's 4.5:1.
 */
export function textContrastOnWhite(element: Element): number {
  const color = getComputedStyle(element).color;
  if (!/^rgb/.test(color)) {
    throw new Error(`No computed rgb colour on the element: '${color}'`);
  }
  return contrastOnWhite(color);
}
