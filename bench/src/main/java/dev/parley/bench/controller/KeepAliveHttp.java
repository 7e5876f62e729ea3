package dev.parley.bench.controller;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The load generator's HTTP/1.1 client: ONE keep-alive connection per worker, blocking, no pooling, no
 * async machinery. The JDK HttpClient cost the load generator about as much CPU per request as the controller
 * spends on the request, on the same two cores; this keeps the load generator from being what limits the run.
 * Understands {@code Content-Length} and chunked bodies; a request on a reused connection that the server had
 * closed is sent once more on a new one (safe: every POST of the benchmark carries an Idempotency-Key).
 */
final class KeepAliveHttp implements AutoCloseable {
    record Response(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final String host;
    private final int port;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    KeepAliveHttp(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** {@code headers} alternate name, value. */
    Response post(String path, String body, String... headers) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(256).append("POST ").append(path).append(" HTTP/1.1\r\nHost: ")
                .append(host).append(':').append(port).append("\r\nContent-Length: ").append(b.length).append("\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            sb.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        byte[] head = sb.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
        boolean reused = socket != null;
        try {
            return exchange(head, b);
        } catch (IOException e) {
            disconnect();
            if (!reused) {
                throw e;
            }
            return exchange(head, b); // the server closed the idle connection: once more on a new one
        }
    }

    private Response exchange(byte[] head, byte[] body) throws IOException {
        if (socket == null) {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 5000);
            socket.setSoTimeout(60_000);
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            out = socket.getOutputStream();
        }
        byte[] req = new byte[head.length + body.length];
        System.arraycopy(head, 0, req, 0, head.length);
        System.arraycopy(body, 0, req, head.length, body.length);
        out.write(req);
        out.flush();
        String status = line();
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean close = false;
        for (String h = line(); !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            String name = h.substring(0, colon).trim();
            String value = h.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                length = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
                close = true;
            }
        }
        byte[] resBody;
        if (chunked) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            for (int n = Integer.parseInt(line().split(";")[0].trim(), 16); n > 0; n = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                buf.write(in.readNBytes(n));
                line();
            }
            while (!line().isEmpty()) {
                // trailers
            }
            resBody = buf.toByteArray();
        } else if (length >= 0) {
            resBody = in.readNBytes((int) length);
            if (resBody.length < length) {
                throw new EOFException("response body cut short");
            }
        } else {
            resBody = in.readAllBytes(); // delimited by the end of the connection
            close = true;
        }
        if (close) {
            disconnect();
        }
        return new Response(code, resBody);
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder(64);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed");
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        disconnect();
    }

    /** Drops the connection; the next request opens a new one. */
    void disconnect() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
        }
    }
}
