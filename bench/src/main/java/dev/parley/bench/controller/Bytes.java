package dev.parley.bench.controller;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer for writing HTTP messages and JSON as ASCII without intermediate Strings. */
final class Bytes {
    byte[] a;
    int n;

    Bytes(int capacity) {
        a = new byte[capacity];
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    Bytes clear() {
        n = 0;
        return this;
    }

    private void room(int more) {
        if (n + more > a.length) {
            a = Arrays.copyOf(a, Math.max(a.length * 2, n + more));
        }
    }

    Bytes add(byte[] b) {
        return add(b, 0, b.length);
    }

    Bytes add(byte[] b, int off, int len) {
        room(len);
        System.arraycopy(b, off, a, n, len);
        n += len;
        return this;
    }

    Bytes add(Bytes b) {
        return add(b.a, 0, b.n);
    }

    /** Appends a String that is ASCII (ids, tokens, numbers); other characters become '?'. */
    Bytes add(String s) {
        int len = s.length();
        room(len);
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            a[n++] = c < 0x80 ? (byte) c : (byte) '?';
        }
        return this;
    }

    Bytes add(long v) {
        if (v == 0) {
            room(1);
            a[n++] = '0';
            return this;
        }
        if (v < 0) {
            return add(Long.toString(v));
        }
        room(20);
        int start = n;
        while (v > 0) {
            a[n++] = (byte) ('0' + v % 10);
            v /= 10;
        }
        for (int i = start, j = n - 1; i < j; i++, j--) {
            byte t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return this;
    }

    Bytes add(char c) {
        room(1);
        a[n++] = (byte) c;
        return this;
    }
}
