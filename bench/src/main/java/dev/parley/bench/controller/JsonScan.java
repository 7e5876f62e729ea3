package dev.parley.bench.controller;

import java.nio.charset.StandardCharsets;

/**
 * Just enough JSON for the load generator and the stub SFU: a forward-only scanner over UTF-8 bytes that walks
 * objects and arrays, reads the few string and integer fields they need and skips everything else, without
 * building a tree (Jackson's tree cost the bench JVM more than the rest of a request). Malformed input throws
 * {@link IllegalArgumentException}; strings with escapes are decoded (the ids we read never contain any).
 */
final class JsonScan {
    private final byte[] b;
    private int pos;
    private final int end;

    JsonScan(byte[] b, int off, int len) {
        this.b = b;
        this.pos = off;
        this.end = off + len;
    }

    /** The string value of a top-level field of the object in {@code b[off, off+len)}, or null if absent. */
    static String topString(byte[] b, int off, int len, String key) {
        JsonScan s = new JsonScan(b, off, len);
        return s.findTopField(key) ? s.readString() : null;
    }

    /** The integer value of a top-level field, or {@code missing} if absent. */
    static long topLong(byte[] b, int off, int len, String key, long missing) {
        JsonScan s = new JsonScan(b, off, len);
        return s.findTopField(key) ? s.readLong() : missing;
    }

    /** Positions on the value of top-level field {@code key} of an object; false if the object has none. */
    boolean findTopField(String key) {
        beginObject();
        while (nextField()) {
            if (fieldIs(key)) {
                return true;
            }
            skipValue();
        }
        return false;
    }

    void beginObject() {
        expect('{');
        first = true;
    }

    void beginArray() {
        expect('[');
        first = true;
    }

    private boolean first;
    private int keyStart;
    private int keyEnd;

    /** Advances to the next field of the current object (its name is then {@link #fieldIs}); false at '}'. */
    boolean nextField() {
        if (!more('}')) {
            return false;
        }
        ws();
        if (peek() != '"') {
            throw bad("field name expected");
        }
        pos++;
        keyStart = pos;
        skipStringBody();
        keyEnd = pos - 1;
        expect(':');
        return true;
    }

    /** Advances to the next element of the current array; false at ']'. */
    boolean nextElement() {
        return more(']');
    }

    private boolean more(char close) {
        ws();
        if (peek() == close) {
            pos++;
            first = false;
            return false;
        }
        if (!first) {
            expect(',');
        }
        first = false;
        return true;
    }

    /** Whether the current field's (unescaped) name is {@code key}. */
    boolean fieldIs(String key) {
        int n = keyEnd - keyStart;
        if (n != key.length()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[keyStart + i] != key.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    String readString() {
        ws();
        if (peek() != '"') {
            throw bad("string expected");
        }
        int start = ++pos;
        boolean escaped = skipStringBody();
        String raw = new String(b, start, pos - 1 - start, StandardCharsets.UTF_8);
        return escaped ? unescape(raw) : raw;
    }

    /** The span {@code [start, end)} of a string value including its quotes, as raw (still escaped) JSON. */
    int[] rawString() {
        ws();
        if (peek() != '"') {
            throw bad("string expected");
        }
        int start = pos++;
        skipStringBody();
        return new int[] {start, pos};
    }

    /** The scanned array (for copying spans out of it). */
    byte[] bytes() {
        return b;
    }

    long readLong() {
        ws();
        int start = pos;
        boolean neg = pos < end && b[pos] == '-';
        if (neg) {
            pos++;
        }
        long v = 0;
        int digits = 0;
        while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
            if (++digits > 18) {
                throw bad("integer too long");
            }
            v = v * 10 + (b[pos++] - '0');
        }
        if (digits == 0 || (pos < end && (b[pos] == '.' || b[pos] == 'e' || b[pos] == 'E'))) {
            pos = start;
            throw bad("integer expected");
        }
        return neg ? -v : v;
    }

    /** Skips one value of any type (nested objects and arrays included). */
    void skipValue() {
        ws();
        byte c = peek();
        switch (c) {
            case '"' -> {
                pos++;
                skipStringBody();
            }
            case '{' -> {
                beginObject();
                while (nextField()) {
                    skipValue();
                }
            }
            case '[' -> {
                beginArray();
                while (nextElement()) {
                    skipValue();
                }
            }
            default -> {
                int start = pos;
                while (pos < end && (b[pos] == '-' || b[pos] == '+' || b[pos] == '.' || (b[pos] >= '0' && b[pos] <= '9')
                        || (b[pos] >= 'a' && b[pos] <= 'z') || (b[pos] >= 'A' && b[pos] <= 'Z'))) {
                    pos++;
                }
                if (pos == start) {
                    throw bad("value expected");
                }
            }
        }
        first = false;
    }

    /** From just after an opening quote to just after the closing one; true if there were escapes. */
    private boolean skipStringBody() {
        boolean escaped = false;
        while (true) {
            if (pos >= end) {
                throw bad("unterminated string");
            }
            byte c = b[pos++];
            if (c == '"') {
                return escaped;
            }
            if (c >= 0 && c < 0x20) {
                // RFC 8259: control characters must be escaped; a span copied verbatim into an answer must stay JSON
                throw bad("unescaped control character in string");
            }
            if (c < 0) {
                skipUtf8Tail(c & 0xff); // RFC 8259 §8.1: a span copied verbatim must stay UTF-8
            }
            if (c == '\\') {
                escaped = true;
                // RFC 8259 §7: only these escapes exist; anything else copied verbatim would not be JSON
                byte e = pos < end ? b[pos] : 0;
                if (e == 'u') {
                    for (int k = 1; k <= 4; k++) {
                        if (pos + k >= end || Character.digit(b[pos + k], 16) < 0) {
                            throw bad("bad \\u escape in string");
                        }
                    }
                    pos += 5;
                } else if ("\"\\/bfnrt".indexOf(e) >= 0 && e != 0) {
                    pos++;
                } else {
                    throw bad("invalid escape in string");
                }
            }
        }
    }

    /** After the lead byte {@code lead} (>= 0x80) of a character: its continuation bytes, well-formed (RFC 3629 §4). */
    private void skipUtf8Tail(int lead) {
        int tail;
        int lo = 0x80;
        int hi = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            tail = 1;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            tail = 2;
            if (lead == 0xE0) lo = 0xA0;      // overlong
            if (lead == 0xED) hi = 0x9F;      // surrogates
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            tail = 3;
            if (lead == 0xF0) lo = 0x90;      // overlong
            if (lead == 0xF4) hi = 0x8F;      // above U+10FFFF
        } else {
            throw bad("invalid UTF-8 in string");
        }
        for (int k = 0; k < tail; k++, lo = 0x80, hi = 0xBF) {
            int u = pos < end ? b[pos] & 0xff : -1;
            if (u < lo || u > hi) {
                throw bad("invalid UTF-8 in string");
            }
            pos++;
        }
    }

    private static String unescape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 >= s.length()) {
                sb.append(c);
                continue;
            }
            char e = s.charAt(++i);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    if (i + 4 >= s.length()) {
                        throw new IllegalArgumentException("bad \\u escape");
                    }
                    try {
                        sb.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    } catch (NumberFormatException nf) {
                        throw new IllegalArgumentException("bad \\u escape");
                    }
                    i += 4;
                }
                default -> sb.append(e);
            }
        }
        return sb.toString();
    }

    private void expect(char c) {
        ws();
        if (pos >= end || b[pos] != c) {
            throw bad("'" + c + "' expected");
        }
        pos++;
    }

    private byte peek() {
        if (pos >= end) {
            throw bad("unexpected end");
        }
        return b[pos];
    }

    private void ws() {
        while (pos < end && (b[pos] == ' ' || b[pos] == '\n' || b[pos] == '\r' || b[pos] == '\t')) {
            pos++;
        }
    }

    private IllegalArgumentException bad(String what) {
        return new IllegalArgumentException("malformed JSON at " + pos + ": " + what);
    }
}
