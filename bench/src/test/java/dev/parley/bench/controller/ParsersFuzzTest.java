package dev.parley.bench.controller;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jazzer: the bench's parsers of network input (controller answers, grant requests to the stub SFU) on any
 * bytes either refuse them with their declared exception or give results that lie inside the input; what the
 * stub writes back is always valid JSON. Regression mode (the default build) runs the seeds once.
 */
class ParsersFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @FuzzTest(maxDuration = "10s")
    void responses(FuzzedDataProvider data) {
        int split = data.consumeInt(0, 64);
        byte[] b = data.consumeRemainingAsBytes();
        ResponseParser p = new ResponseParser();
        try {
            int done = p.parse(b, Math.min(split, b.length));
            if (done == 0) {
                done = p.parse(b, b.length);
            }
            if (done == 0) {
                done = p.parseAtEof(b, b.length);
            }
            assertThat(done).isBetween(1, b.length);
            assertThat(p.status).isBetween(0, 999);
            assertThat(p.bodyLen).isBetween(0, ResponseParser.MAX_BODY);
            assertThat(p.bodyOff + p.bodyLen).isLessThanOrEqualTo(p.body.length);
        } catch (IOException refused) {
            // refused is fine
        }
    }

    @FuzzTest(maxDuration = "10s")
    void json(FuzzedDataProvider data) throws IOException {
        String key = data.consumeString(8);
        byte[] b = data.consumeRemainingAsBytes();
        try {
            JsonScan.topString(b, 0, b.length, key);
            JsonScan.topLong(b, 0, b.length, key, 0);
        } catch (IllegalArgumentException refused) {
            // malformed or another type
        }
        BenchSfuStub.AckWriter w = new BenchSfuStub.AckWriter();
        if (w.single(b, 0, b.length)) {
            JSON.readTree(w.out.a, 0, w.out.n);
        }
        if (w.batch(b, 0, b.length)) {
            JSON.readTree(w.out.a, 0, w.out.n);
        }
    }
}
