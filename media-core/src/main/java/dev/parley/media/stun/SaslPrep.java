package dev.parley.media.stun;

import java.text.Normalizer;

/**
 * SASLprep (RFC 4013, the stringprep profile RFC 5389 uses for passwords): map non-ASCII spaces to U+0020, drop
 * characters "commonly mapped to nothing", normalise with NFKC, refuse prohibited characters and bad
 * bidirectional text. Unassigned code points are allowed (the "query" rule), as STUN compares keys, never stores
 * prepared strings.
 */
public final class SaslPrep {
    private SaslPrep() {
    }

    /** @throws IllegalArgumentException if the string contains a prohibited character or breaks the bidi rules */
    public static String prepare(String s) {
        StringBuilder mapped = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (isNonAsciiSpace(cp)) {
                mapped.append(' ');
            } else if (!isMappedToNothing(cp)) {
                mapped.appendCodePoint(cp);
            }
        }
        String n = Normalizer.normalize(mapped, Normalizer.Form.NFKC);
        boolean randAl = false;
        boolean l = false;
        for (int i = 0; i < n.length(); ) {
            int cp = n.codePointAt(i);
            i += Character.charCount(cp);
            if (isProhibited(cp)) {
                throw new IllegalArgumentException(String.format("SASLprep: prohibited character U+%04X", cp));
            }
            byte dir = Character.getDirectionality(cp);
            randAl |= dir == Character.DIRECTIONALITY_RIGHT_TO_LEFT || dir == Character.DIRECTIONALITY_RIGHT_TO_LEFT_ARABIC;
            l |= dir == Character.DIRECTIONALITY_LEFT_TO_RIGHT;
        }
        if (randAl) {
            if (l || !isRandAl(n.codePointAt(0)) || !isRandAl(n.codePointBefore(n.length()))) {
                throw new IllegalArgumentException("SASLprep: bidirectional text rules violated");
            }
        }
        return n;
    }

    private static boolean isRandAl(int cp) {
        byte dir = Character.getDirectionality(cp);
        return dir == Character.DIRECTIONALITY_RIGHT_TO_LEFT || dir == Character.DIRECTIONALITY_RIGHT_TO_LEFT_ARABIC;
    }

    // RFC 3454 C.1.2
    private static boolean isNonAsciiSpace(int cp) {
        return cp == 0x00A0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x202F || cp == 0x205F
                || cp == 0x3000;
    }

    // RFC 3454 B.1
    private static boolean isMappedToNothing(int cp) {
        return cp == 0x00AD || cp == 0x034F || cp == 0x1806 || (cp >= 0x180B && cp <= 0x180D)
                || (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF;
    }

    // RFC 3454 C.1.2, C.2.1, C.2.2, C.3, C.4, C.5, C.6, C.7, C.8, C.9
    private static boolean isProhibited(int cp) {
        if (isNonAsciiSpace(cp) || Character.isISOControl(cp)) {
            return true;
        }
        int type = Character.getType(cp);
        if (type == Character.PRIVATE_USE || type == Character.SURROGATE) {
            return true;
        }
        if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) {
            return true; // non-characters
        }
        return cp == 0x06DD || cp == 0x070F || cp == 0x180E || (cp >= 0x200C && cp <= 0x200D)
                || (cp >= 0x2028 && cp <= 0x2029) || (cp >= 0x2060 && cp <= 0x2063) || (cp >= 0x206A && cp <= 0x206F)
                || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFD) || (cp >= 0x1D173 && cp <= 0x1D17A)
                || (cp >= 0x2FF0 && cp <= 0x2FFB) || cp == 0x0340 || cp == 0x0341 || cp == 0x200E || cp == 0x200F
                || (cp >= 0x202A && cp <= 0x202E) || cp == 0xE0001 || (cp >= 0xE0020 && cp <= 0xE007F);
    }
}
