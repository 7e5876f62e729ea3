package dev.parley.bench.controller;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link JsonScan} and {@link ResponseParser} on their own. */
class ParsersTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readsTopLevelFieldsOnlyAndSkipsEverythingElse() {
        byte[] j = b(" { \"a\" : [1, {\"participant_id\": \"nested\"}, [], \"x\\\"y\"], \"n\": null, \"t\": true, \"f\": -1.5e3,"
                + " \"participant_id\" : \"p-1\", \"participant_version\": 42, \"esc\": \"a\\u0041\\n\" } ");
        assertThat(JsonScan.topString(j, 0, j.length, "participant_id")).isEqualTo("p-1");
        assertThat(JsonScan.topLong(j, 0, j.length, "participant_version", -1)).isEqualTo(42);
        assertThat(JsonScan.topString(j, 0, j.length, "esc")).isEqualTo("aA\n");
        assertThat(JsonScan.topString(j, 0, j.length, "missing")).isNull();
        assertThat(JsonScan.topLong(j, 0, j.length, "missing", -7)).isEqualTo(-7);
        // an offset and length inside a larger buffer
        byte[] framed = b("xx{\"k\":\"v\"}yy");
        assertThat(JsonScan.topString(framed, 2, 9, "k")).isEqualTo("v");
    }

    @Test
    void refusesMalformedJsonAndWrongTypes() {
        for (String bad : new String[] {"", "[]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":\"x}", "{\"a\" 1}", "{\"a\":1 \"b\":2}"}) {
            byte[] j = b(bad);
            assertThatThrownBy(() -> JsonScan.topString(j, 0, j.length, "b")).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        byte[] notString = b("{\"id\": 5}");
        assertThatThrownBy(() -> JsonScan.topString(notString, 0, notString.length, "id")).isInstanceOf(IllegalArgumentException.class);
        byte[] notInt = b("{\"v\": 1.5}");
        assertThatThrownBy(() -> JsonScan.topLong(notInt, 0, notInt.length, "v", 0)).isInstanceOf(IllegalArgumentException.class);
        byte[] huge = b("{\"v\": 12345678901234567890}");
        assertThatThrownBy(() -> JsonScan.topLong(huge, 0, huge.length, "v", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parsesAResponseOnlyOnceItIsComplete() throws IOException {
        byte[] r = b("HTTP/1.1 201 Created\r\ncontent-LENGTH:  13 \r\nConnection: keep-alive\r\n\r\n{\"a\":\"b\",\"c\":1}");
        // Content-Length 13 of a 15-byte body: the response ends after 13 (what follows would be the next one)
        ResponseParser p = new ResponseParser();
        for (int n = 0; n < r.length - 2; n++) {
            p.reset();
            assertThat(p.parse(r, n)).as("after %d bytes", n).isZero();
        }
        p.reset();
        assertThat(p.parse(r, r.length)).isEqualTo(r.length - 2);
        assertThat(p.status).isEqualTo(201);
        assertThat(p.close).isFalse();
        assertThat(new String(p.body, p.bodyOff, p.bodyLen, StandardCharsets.UTF_8)).isEqualTo("{\"a\":\"b\",\"c\":");
    }

    @Test
    void decodesChunkedBodiesAndSeesConnectionClose() throws IOException {
        byte[] r = b("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n4\r\n{\"a\"\r\n5;x=y\r\n:\"b\"}\r\n0\r\nTrailer: 1\r\n\r\n");
        ResponseParser p = new ResponseParser();
        for (int n = 0; n < r.length; n++) {
            p.reset();
            assertThat(p.parse(r, n)).as("after %d bytes", n).isZero();
        }
        p.reset();
        assertThat(p.parse(r, r.length)).isEqualTo(r.length);
        assertThat(p.close).isTrue();
        assertThat(new String(p.body, p.bodyOff, p.bodyLen, StandardCharsets.UTF_8)).isEqualTo("{\"a\":\"b\"}");
    }

    @Test
    void aBodyWithoutLengthEndsWithTheConnection() throws IOException {
        byte[] r = b("HTTP/1.1 500 Oops\r\n\r\nbroken");
        ResponseParser p = new ResponseParser();
        assertThat(p.parse(r, r.length)).isZero();
        assertThat(p.parseAtEof(r, r.length)).isEqualTo(r.length);
        assertThat(p.status).isEqualTo(500);
        assertThat(p.close).isTrue();
        assertThat(p.bodyLen).isEqualTo(6);
        ResponseParser q = new ResponseParser();
        byte[] cut = b("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}");
        assertThatThrownBy(() -> q.parseAtEof(cut, cut.length)).isInstanceOf(IOException.class);
        ResponseParser e = new ResponseParser();
        assertThatThrownBy(() -> e.parseAtEof(new byte[0], 0)).isInstanceOf(IOException.class);
    }

    @Test
    void refusesWhatIsNotHttp() {
        for (String bad : new String[] {"HTTX/1.1 200 OK\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
                "HTTP/1.1 200 OK\nX: y\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}) {
            byte[] r = b(bad);
            assertThatThrownBy(() -> new ResponseParser().parse(r, r.length)).as(bad).isInstanceOf(IOException.class);
        }
    }
}
