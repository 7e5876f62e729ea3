package dev.parley.bench.controller;

import java.io.IOException;

/**
 * Parses one HTTP/1.1 response from the bytes received so far, without copying them into Strings: status code,
 * {@code Content-Length} or chunked body, {@code Connection: close}. {@link #parse} answers 0 until the response
 * is complete; the caller keeps appending what it reads. A response whose length is not known (no length, not
 * chunked) ends with the connection ({@link #parseAtEof}).
 */
final class ResponseParser {
    /** Status line + headers larger than this are refused (the controller's are a few hundred bytes). */
    static final int MAX_HEAD = 16 * 1024;
    /** Bodies larger than this are refused (the largest answer of the flow, a transport, is ~1 KiB). */
    static final int MAX_BODY = 4 * 1024 * 1024;

    int status;
    boolean close;
    /** The body: {@code body[bodyOff, bodyOff + bodyLen)} — the receive buffer itself unless chunked. */
    byte[] body;
    int bodyOff;
    int bodyLen;
    private final Bytes chunks = new Bytes(1024);

    private int headEnd = -1; // index after the blank line
    private long length;
    private boolean chunked;

    void reset() {
        headEnd = -1;
        status = 0;
        close = false;
        body = null;
        bodyOff = 0;
        bodyLen = 0;
    }

    /** The total length of the complete response at the start of {@code b[0, n)}, or 0 if more bytes are needed. */
    int parse(byte[] b, int n) throws IOException {
        if (headEnd < 0 && !parseHead(b, n)) {
            return 0;
        }
        if (chunked) {
            return parseChunks(b, n);
        }
        if (length < 0) {
            return 0; // until the end of the connection
        }
        if (n - headEnd < length) {
            return 0;
        }
        body = b;
        bodyOff = headEnd;
        bodyLen = (int) length;
        return headEnd + (int) length;
    }

    /** At the end of the connection: the response if it was complete or delimited by the close, else an error. */
    int parseAtEof(byte[] b, int n) throws IOException {
        int done = parse(b, n);
        if (done > 0) {
            return done;
        }
        if (headEnd >= 0 && !chunked && length < 0) {
            body = b;
            bodyOff = headEnd;
            bodyLen = n - headEnd;
            close = true;
            return n;
        }
        throw new IOException(n == 0 ? "connection closed" : "connection closed inside a response");
    }

    private boolean parseHead(byte[] b, int n) throws IOException {
        int end = -1;
        for (int i = 3; i < n; i++) {
            if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                end = i + 1;
                break;
            }
        }
        if (end < 0) {
            if (n > MAX_HEAD) {
                throw new IOException("response head too long");
            }
            return false;
        }
        // "HTTP/1.1 200 ..."
        if (end < 16 || b[0] != 'H' || b[1] != 'T' || b[2] != 'T' || b[3] != 'P' || b[4] != '/' || b[8] != ' ') {
            throw new IOException("not an HTTP response");
        }
        status = 0;
        for (int i = 9; i < 12; i++) {
            if (b[i] < '0' || b[i] > '9') {
                throw new IOException("bad status code");
            }
            status = status * 10 + (b[i] - '0');
        }
        length = -1;
        chunked = false;
        close = false;
        int line = lineEnd(b, 0, end) + 1;
        while (line < end - 2) {
            int le = lineEnd(b, line, end);
            int colon = indexOf(b, line, le, (byte) ':');
            if (colon < 0) {
                throw new IOException("bad header line");
            }
            int vs = colon + 1;
            int ve = le - 1; // before '\r'
            while (vs < ve && b[vs] == ' ') {
                vs++;
            }
            while (ve > vs && b[ve - 1] == ' ') {
                ve--;
            }
            if (nameIs(b, line, colon, "content-length")) {
                length = 0;
                if (vs == ve) {
                    throw new IOException("bad Content-Length");
                }
                for (int i = vs; i < ve; i++) {
                    if (b[i] < '0' || b[i] > '9' || length > MAX_BODY) {
                        throw new IOException("bad Content-Length");
                    }
                    length = length * 10 + (b[i] - '0');
                }
                if (length > MAX_BODY) {
                    throw new IOException("response body too large");
                }
            } else if (nameIs(b, line, colon, "transfer-encoding")) {
                chunked = valueIs(b, vs, ve, "chunked");
            } else if (nameIs(b, line, colon, "connection")) {
                close = valueIs(b, vs, ve, "close");
            }
            line = le + 1;
        }
        if (status == 204 || status == 304 || (status >= 100 && status < 200)) {
            length = 0; // no body by definition
            chunked = false;
        }
        headEnd = end;
        chunks.clear();
        return true;
    }

    /** Decodes the chunked body from scratch each time (responses here are one or two chunks). */
    private int parseChunks(byte[] b, int n) throws IOException {
        chunks.clear();
        int p = headEnd;
        while (true) {
            int le = lineEnd(b, p, n);
            if (le < 0) {
                return 0;
            }
            long size = 0;
            int digits = 0;
            for (int i = p; i < le - 1 && b[i] != ';'; i++) {
                int d = Character.digit(b[i], 16);
                if (d < 0 || ++digits > 7) {
                    throw new IOException("bad chunk size");
                }
                size = size * 16 + d;
            }
            if (digits == 0) {
                throw new IOException("bad chunk size");
            }
            p = le + 1;
            if (size == 0) {
                // trailers up to an empty line
                while (true) {
                    int te = lineEnd(b, p, n);
                    if (te < 0) {
                        return 0;
                    }
                    boolean empty = te == p + 1;
                    p = te + 1;
                    if (empty) {
                        body = chunks.a;
                        bodyOff = 0;
                        bodyLen = chunks.n;
                        return p;
                    }
                }
            }
            if (chunks.n + size > MAX_BODY) {
                throw new IOException("response body too large");
            }
            if (n - p < size + 2) {
                return 0;
            }
            chunks.add(b, p, (int) size);
            p += (int) size;
            if (b[p] != '\r' || b[p + 1] != '\n') {
                throw new IOException("bad chunk end");
            }
            p += 2;
        }
    }

    /** Index of the '\n' ending the line that starts at {@code from} (the '\r' before it is required), or -1. */
    private static int lineEnd(byte[] b, int from, int to) throws IOException {
        for (int i = from; i < to; i++) {
            if (b[i] == '\n') {
                if (i == from || b[i - 1] != '\r') {
                    throw new IOException("bare LF");
                }
                return i;
            }
        }
        return -1;
    }

    private static int indexOf(byte[] b, int from, int to, byte c) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** Case-insensitive match of {@code b[from, to)} against a lower-case ASCII name. */
    static boolean nameIs(byte[] b, int from, int to, String lower) {
        if (to - from != lower.length()) {
            return false;
        }
        for (int i = 0; i < lower.length(); i++) {
            int c = b[from + i];
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean valueIs(byte[] b, int from, int to, String lower) {
        return nameIs(b, from, to, lower);
    }
}
