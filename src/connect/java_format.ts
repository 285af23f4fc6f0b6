/**
 * Java's text forms of floating-point numbers (`Double.toString`, `Float.toString`), which Jackson (and therefore
 * Kafka's JsonConverter) and Connect's `Values.convertToString` print. Matching them is what makes our JSON
 * byte-identical to Kafka's: a double 1.0 prints `1.0`, 1e7 prints `1.0E7`, the float 12.34f prints `12.34`.
 *
 * The digit selection follows the JDK 19+ specification (shortest decimal that rounds back to the value, the
 * closest one on ties, and at least two significant digits considered when one would do). Older JDKs sometimes
 * printed one extra, non-shortest digit; those outputs are not reproduced.
 */

/** Significant digits (no leading/trailing zeros, at least one digit) and the decimal exponent of the first. */
interface DecimalDigits {
  digits: string;
  exponent: number;
}

function parseExponential(text: string): DecimalDigits {
  const [mantissa, exp] = text.split("e");
  const digits = mantissa.replace("-", "").replace(".", "").replace(/0+$/, "") || "0";
  return { digits, exponent: Number(exp) };
}

/** Shortest digits that identify `value` among values of the target precision, per the JDK 19 rule. */
function shortestDigits(value: number, roundsBack: (candidate: number) => boolean): DecimalDigits {
  let chosen: string | undefined;
  for (let precision = 1; precision <= 17; precision++) {
    const candidate = value.toExponential(precision - 1);
    if (roundsBack(Number(candidate))) {
      chosen = candidate;
      if (precision === 1) {
        // Java considers two-digit decimals when one digit suffices and keeps the closest of them.
        const twoDigits = value.toExponential(1);
        if (roundsBack(Number(twoDigits))) chosen = twoDigits;
      }
      break;
    }
  }
  return parseExponential(chosen ?? value.toExponential());
}

function render(negative: boolean, { digits, exponent }: DecimalDigits, magnitude: number): string {
  const sign = negative ? "-" : "";
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    if (exponent >= 0) {
      const integer = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
      const fraction = digits.slice(exponent + 1) || "0";
      return `${sign}${integer}.${fraction}`;
    }
    return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1) || "0"}E${exponent}`;
}

function nonFinite(value: number): string | null {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  return null;
}

/** Java's `Double.toString(value)`: `1.0`, `12.34`, `1.0E7`, `1.0E-4`, `NaN`, `-Infinity`. */
export function formatJavaDouble(value: number): string {
  const special = nonFinite(value);
  if (special !== null) return special;
  const magnitude = Math.abs(value);
  return render(value < 0, shortestDigits(magnitude, (c) => c === magnitude), magnitude);
}

/** Java's `Float.toString(value)` for `Math.fround(value)`: the float 12.34f prints `12.34`, not `12.34000015`. */
export function formatJavaFloat(value: number): string {
  const f = Math.fround(value);
  const special = nonFinite(f);
  if (special !== null) return special;
  const magnitude = Math.abs(f);
  return render(f < 0, shortestDigits(magnitude, (c) => Math.fround(c) === magnitude), magnitude);
}
