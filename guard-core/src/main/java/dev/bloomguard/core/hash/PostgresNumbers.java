package dev.bloomguard.core.hash;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Numbers read from text as PostgreSQL reads them, so that {@link KeyType#INTEGER} compares a
 * text key ({@code " 0x2A "}, {@code "4_2"}, {@code "42.0"}) as an integer or numeric column would.
 */
final class PostgresNumbers {

    private PostgresNumbers() {
    }

    /**
     * A number as PostgreSQL's {@code int8in}/{@code numeric_in} read it, or null: whitespace
     * around, a sign, then {@code 0x}/{@code 0o}/{@code 0b} digits, or decimal digits with an
     * optional fraction and exponent; single {@code _} between digits.
     */
    static BigDecimal parse(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isSpace(text.charAt(start))) {
            start++;
        }
        while (end > start && isSpace(text.charAt(end - 1))) {
            end--;
        }
        boolean negative = false;
        if (start < end && (text.charAt(start) == '+' || text.charAt(start) == '-')) {
            negative = text.charAt(start) == '-';
            start++;
        }
        if (end - start > 2 && text.charAt(start) == '0') {
            int radix = switch (text.charAt(start + 1)) {
                case 'x', 'X' -> 16;
                case 'o', 'O' -> 8;
                case 'b', 'B' -> 2;
                default -> 0;
            };
            if (radix != 0) {
                String digits = digits(text, start + 2, end, radix);
                if (digits == null) {
                    return null;
                }
                BigInteger value = new BigInteger(digits, radix);
                return new BigDecimal(negative ? value.negate() : value);
            }
        }
        int exponentAt = end;
        for (int i = start; i < end; i++) {
            if (text.charAt(i) == 'e' || text.charAt(i) == 'E') {
                exponentAt = i;
                break;
            }
        }
        int pointAt = text.indexOf('.', start);
        if (pointAt >= exponentAt) {
            pointAt = -1;
        }
        String whole = digits(text, start, pointAt < 0 ? exponentAt : pointAt, 10);
        String fraction = pointAt < 0 ? "" : digits(text, pointAt + 1, exponentAt, 10);
        if (whole == null && pointAt >= 0 && pointAt == start) {
            whole = "";
        }
        if (fraction == null && pointAt >= 0 && pointAt + 1 == exponentAt) {
            fraction = "";
        }
        if (whole == null || fraction == null || whole.isEmpty() && fraction.isEmpty()) {
            return null;
        }
        long exponent = 0;
        if (exponentAt < end) {
            int at = exponentAt + 1;
            boolean negativeExponent = false;
            if (at < end && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
                negativeExponent = text.charAt(at) == '-';
                at++;
            }
            String exponentDigits = digits(text, at, end, 10);
            if (exponentDigits == null || exponentDigits.length() > 9) {
                return null;
            }
            exponent = Long.parseLong(exponentDigits) * (negativeExponent ? -1 : 1);
        }
        BigDecimal value = new BigDecimal(new BigInteger(whole + fraction),
                (int) (fraction.length() - exponent));
        return negative ? value.negate() : value;
    }

    /** The digits of {@code text[from, to)} in {@code radix} without their {@code _} separators, or null if malformed. */
    static String digits(String text, int from, int to, int radix) {
        if (from >= to) {
            return null;
        }
        StringBuilder digits = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c == '_') {
                if (i == from || i == to - 1 || text.charAt(i + 1) == '_') {
                    return null;
                }
                continue;
            }
            if (Character.digit(c, radix) < 0 || c > 'z') {
                return null;
            }
            digits.append(c);
        }
        return digits.toString();
    }

    /** PostgreSQL's {@code isspace} in the C locale. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\u000B' || c == '\f';
    }
}
